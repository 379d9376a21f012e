// Command gen trains the style package's classifier: a logistic regression over the sentence
// vectors (package encoder) of the messages in service.txt (asking a business for something)
// and aside.txt (asking it nothing: general knowledge, advice on life, chat), written for this
// and for nothing else. Training is full-batch gradient descent from zero weights, so the same
// lines give the same weights on every run (on one architecture: another may fuse
// multiplications and additions differently in the last bits). It reports the classifier's
// accuracy in k-fold cross-validation before it trains on every line, and writes the weights
// as little-endian float32s: one per dimension, then the bias.
//
//	go run ./gen -out weights.bin
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/encoder"
)

func main() {
	dir := flag.String("dir", "gen", "folder holding service.txt and aside.txt")
	out := flag.String("out", "weights.bin", "file to write")
	lambda := flag.Float64("l2", 1e-4, "L2 penalty on the weights")
	epochs := flag.Int("epochs", 2000, "gradient steps")
	folds := flag.Int("folds", 5, "cross-validation folds (0 or 1 skips the check)")
	flag.Parse()
	if err := run(*dir, *out, *lambda, *epochs, *folds); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// example is one message's sentence vector and whether it is an aside.
type example struct {
	x     []float32
	aside bool
}

func run(dir, out string, lambda float64, epochs, folds int) error {
	enc, err := encoder.Load()
	if err != nil {
		return err
	}
	var data []example
	for _, f := range []struct {
		name  string
		aside bool
	}{{"service.txt", false}, {"aside.txt", true}} {
		lines, err := readLines(filepath.Join(dir, f.name))
		if err != nil {
			return err
		}
		for _, l := range lines {
			if v := enc.Embed(l); v != nil {
				data = append(data, example{x: v, aside: f.aside})
			}
		}
		fmt.Printf("%s: %d messages\n", f.name, len(lines))
	}
	if folds > 1 {
		correct := 0
		for k := range folds {
			var train, test []example
			for i, e := range data {
				if i%folds == k {
					test = append(test, e)
				} else {
					train = append(train, e)
				}
			}
			w := fit(train, lambda, epochs)
			for _, e := range test {
				if (prob(w, e.x) >= 0.5) == e.aside {
					correct++
				}
			}
		}
		fmt.Printf("%d-fold cross-validated accuracy: %.1f%% of %d\n", folds, 100*float64(correct)/float64(len(data)), len(data))
	}
	w := fit(data, lambda, epochs)
	buf := make([]byte, 4*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(float32(v)))
	}
	return os.WriteFile(out, buf, 0o644)
}

// fit returns the weights (then the bias) that minimise the mean log loss plus lambda times
// the squared weights, by gradient descent with a fixed step.
func fit(data []example, lambda float64, epochs int) []float64 {
	const step = 2.0
	w := make([]float64, encoder.Dims+1)
	grad := make([]float64, len(w))
	for range epochs {
		clear(grad)
		for _, e := range data {
			y := 0.0
			if e.aside {
				y = 1
			}
			d := prob(w, e.x) - y
			for j, v := range e.x {
				grad[j] += d * float64(v)
			}
			grad[encoder.Dims] += d
		}
		n := float64(len(data))
		for j := range w {
			g := grad[j] / n
			if j < encoder.Dims {
				g += 2 * lambda * w[j]
			}
			w[j] -= step * g
		}
	}
	return w
}

func prob(w []float64, x []float32) float64 {
	z := w[len(w)-1]
	for j, v := range x {
		z += w[j] * float64(v)
	}
	return 1 / (1 + math.Exp(-z))
}

// readLines returns the file's lines that are neither blank nor comments ("# ...").
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}
