package lang

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestWordLists: language.txt parses, and every section is read by the model's code (this
// package or those that use it) as a list, a number or frames: a list nobody reads is a list
// nobody maintains.
func TestWordLists(t *testing.T) {
	lists, err := parseLists(languageData)
	if err != nil {
		t.Fatalf("parseLists(language.txt) = %v", err)
	}
	// The readers are this package and the model's packages around it.
	var code strings.Builder
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		code.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`\b(?:List|Number|PhraseList|Frames)\("(\w+)"\)`).FindAllStringSubmatch(code.String(), -1)
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
	if got := Number("minCompoundLetters"); got <= 0 {
		t.Errorf(`Number("minCompoundLetters") = %v, want a positive count`, got)
	}
	defer func() {
		if recover() == nil {
			t.Error(`Number("anaphora") did not panic on a word list`)
		}
	}()
	Number("anaphora")
}
