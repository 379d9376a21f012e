// Command gen writes lexicon's word list from the WordNet 3.0 database:
//
//	go run ./internal/llm/offline/lexicon/gen -wordnet /usr/share/wordnet -out internal/llm/offline/lexicon/words.txt.gz
//
// Debian ships the database as the package wordnet-base. The list holds every single-word
// lemma of every part of speech and the irregular forms WordNet lists ("children", "went"),
// lowercased, sorted and gzipped: the same database always gives the same bytes.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "folder of the WordNet 3.0 database (Debian: wordnet-base)")
	out := flag.String("out", "internal/llm/offline/lexicon/words.txt.gz", "file to write")
	flag.Parse()
	if err := run(*dir, *out); err != nil {
		log.Fatal(err)
	}
}

func run(dir, out string) error {
	seen := map[string]bool{}
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		// index.<pos>: one lemma a line, first field; exceptions (<pos>.exc): an irregular
		// form, then its base forms.
		for _, name := range []string{"index." + pos, pos + ".exc"} {
			err := eachLine(filepath.Join(dir, name), func(line string) {
				if strings.HasPrefix(line, " ") {
					return // licence header
				}
				w, _, _ := strings.Cut(line, " ")
				if w = strings.ToLower(w); w != "" && !strings.ContainsAny(w, "_.()/") {
					seen[w] = true
				}
			})
			if err != nil {
				return err
			}
		}
	}
	words := make([]string, 0, len(seen))
	for w := range seen {
		words = append(words, w)
	}
	slices.Sort(words)

	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(zw)
	fmt.Fprintln(bw, "# WordNet 3.0 (Princeton University) single-word lemmas and irregular forms; see LICENSE-WordNet")
	for _, w := range words {
		fmt.Fprintln(bw, w)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

func eachLine(path string, fn func(string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadString('\n')
		if line = strings.TrimRight(line, "\n"); line != "" {
			fn(line)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
