package lang

import (
	"cmp"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// languageData holds the model's English word lists, each commented with why it exists.
//
//go:embed language.txt
var languageData string

// sections are the entries of each section of language.txt, by name, in file order.
var sections = func() map[string][]string {
	secs, err := parseLists(languageData)
	if err != nil {
		panic(err) // the file is embedded in the build: TestWordLists fails first
	}
	return secs
}()

// wordLists are the sections of language.txt as sets of entries, by name.
var wordLists = func() map[string]map[string]bool {
	out := make(map[string]map[string]bool, len(sections))
	for name, entries := range sections {
		set := make(map[string]bool, len(entries))
		for _, e := range entries {
			set[e] = true
		}
		out[name] = set
	}
	return out
}()

// List returns the word list of that name from language.txt. The set is shared by every
// caller: callers must not modify it. A name the file lacks is a programming error, found by
// the first test that loads the package.
func List(name string) map[string]bool {
	l, ok := wordLists[name]
	if !ok {
		panic("lang: language.txt has no [" + name + "]")
	}
	return l
}

// Frames returns the entries of that section of language.txt in file order, each split
// into its words: runs of words such as "how are you", tried in order.
func Frames(name string) [][]string {
	List(name) // the section must exist
	var out [][]string
	for _, e := range sections[name] {
		out = append(out, strings.Fields(e))
	}
	return out
}

// PhraseList returns the word list of that name from language.txt read as phrases of words,
// longest first, so that "oh and" is tried before "and".
func PhraseList(name string) [][]string {
	var out [][]string
	for p := range List(name) {
		out = append(out, strings.Fields(p))
	}
	slices.SortFunc(out, func(a, b []string) int { return cmp.Or(len(b)-len(a), slices.Compare(a, b)) })
	return out
}

// Number returns the threshold of that name from language.txt: a section holding one number.
func Number(name string) float64 {
	l := List(name)
	for w := range l {
		if v, err := strconv.ParseFloat(w, 64); err == nil && len(l) == 1 {
			return v
		}
	}
	panic("lang: language.txt's [" + name + "] is not one number")
}

// parseLists reads the sections of a word-list file: "[name]" lines, each followed by
// comma-separated entries; lines starting with "#" and blank lines are skipped. Each
// section's entries are kept in file order.
func parseLists(data string) (map[string][]string, error) {
	out := map[string][]string{}
	cur := ""
	for n, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			name := line[1 : len(line)-1]
			if _, dup := out[name]; dup || name == "" {
				return nil, fmt.Errorf("lang: language.txt:%d: section %q is empty or repeated", n+1, name)
			}
			cur = name
			out[name] = []string{}
		case cur == "":
			return nil, fmt.Errorf("lang: language.txt:%d: words before the first [section]", n+1)
		default:
			for w := range strings.SplitSeq(line, ",") {
				if w = strings.TrimSpace(w); w != "" {
					out[cur] = append(out[cur], w)
				}
			}
		}
	}
	return out, nil
}
