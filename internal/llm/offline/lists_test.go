package offline

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestWordLists: language.txt parses, and every section is read by the code as a list, a
// number or frames (a list nobody reads is a list nobody maintains).
func TestWordLists(t *testing.T) {
	lists, err := parseLists(languageData)
	if err != nil {
		t.Fatalf("parseLists(language.txt) = %v", err)
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var code strings.Builder
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			b, err := os.ReadFile(e.Name())
			if err != nil {
				t.Fatal(err)
			}
			code.Write(b)
		}
	}
	read := regexp.MustCompile(`\b(?:list|number|phraseList|frames)\("(\w+)"\)`).FindAllStringSubmatch(code.String(), -1)
	var used []string
	for _, m := range read {
		used = append(used, m[1])
		if _, ok := lists[m[1]]; !ok {
			t.Errorf("the code reads [%s], which language.txt lacks", m[1])
		}
	}
	for name, words := range lists {
		if !slices.Contains(used, name) {
			t.Errorf("language.txt: [%s] is read by no code", name)
		}
		if len(words) == 0 {
			t.Errorf("language.txt: [%s] is empty", name)
		}
	}
}

func TestParseListsErrors(t *testing.T) {
	for _, data := range []string{"word\n[a]\nx", "[a]\nx\n[a]\ny", "[]\nx"} {
		if _, err := parseLists(data); err == nil {
			t.Errorf("parseLists(%q) = nil error, want one", data)
		}
	}
}

func TestNumber(t *testing.T) {
	if got := number("minCompoundLetters"); got <= 0 {
		t.Errorf(`number("minCompoundLetters") = %v, want a positive count`, got)
	}
	defer func() {
		if recover() == nil {
			t.Error(`number("anaphora") did not panic on a word list`)
		}
	}()
	number("anaphora")
}
