// Command followexp is the learned follow-up decision's experiment (a negative result, see
// README.md): it trains a logistic regression that says whether a turn continues the previous
// turn's agents or goes where its own words point, from the features the router dumped, and
// scores the eval reports of development sets, each set held out in turn.
//
//	followexp train -dump DIR -reports OUT -wdir WDIR SET...  # leave-one-set-out weights
//	followexp train -nested -dump DIR -reports OUT SET...     # the knobs chosen inside each fold
//	followexp score OUT SET... [-- OUT2...]                   # follow-ups, switches, routing
//
// The router's side (the features, SWITCHBOARD_FOLLOW_DUMP and SWITCHBOARD_FOLLOW_WEIGHTS) was
// taken out again once the experiment said no; README.md names the commit that has it.
// Training is full-batch gradient descent from zero weights on standardised features, so the
// same dumps give the same weights. Only development sets may be named.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: followexp train|score ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "train":
		err = train(os.Args[2:])
	case "score":
		err = score(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "followexp:", err)
		os.Exit(1)
	}
}

// report is the part of an eval report the experiment reads.
type report struct {
	Cases []struct {
		ID    string `json:"id"`
		Turns []struct {
			Message  string   `json:"message"`
			Expected []string `json:"expected"`
			Invoked  []string `json:"invoked"`
			Correct  bool     `json:"routing_correct"`
		} `json:"turns"`
	} `json:"cases"`
}

func readReport(path string) (*report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r report
	return &r, json.Unmarshal(data, &r)
}

// tally counts one set's turns: all, non-first expecting the previous turn's agents again
// (follow-ups), non-first expecting other agents (switches), and how many of each routed right.
type tally struct{ all, allOK, fol, folOK, sw, swOK int }

func (t *tally) add(o tally) {
	t.all += o.all
	t.allOK += o.allOK
	t.fol += o.fol
	t.folOK += o.folOK
	t.sw += o.sw
	t.swOK += o.swOK
}

func key(xs []string) string {
	ys := make([]string, len(xs))
	for i, x := range xs {
		ys[i] = norm(x)
	}
	slices.Sort(ys)
	return strings.Join(ys, ",")
}

// norm spells an agent name the way the router's humanised names are: lower case, spaces.
func norm(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", " ") }

func tallyOf(r *report) tally {
	var t tally
	for _, c := range r.Cases {
		for i, turn := range c.Turns {
			t.all++
			ok := turn.Correct
			if ok {
				t.allOK++
			}
			if i == 0 {
				continue
			}
			prev := c.Turns[i-1].Expected
			switch {
			case len(turn.Expected) > 0 && key(turn.Expected) == key(prev):
				t.fol++
				if ok {
					t.folOK++
				}
			case len(turn.Expected) > 0:
				t.sw++
				if ok {
					t.swOK++
				}
			}
		}
	}
	return t
}

func score(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: score OUT SET... [-- OUT2]")
	}
	dirs := []string{args[0]}
	sets := args[1:]
	if i := slices.Index(sets, "--"); i >= 0 {
		dirs = append(dirs, sets[i+1:]...)
		sets = sets[:i]
	}
	fmt.Printf("%-8s", "set")
	for _, d := range dirs {
		fmt.Printf(" | %-36s", filepath.Base(d)+": follow-ups, switches, all")
	}
	fmt.Println()
	totals := make([]tally, len(dirs))
	for _, s := range sets {
		fmt.Printf("%-8s", s)
		for i, d := range dirs {
			r, err := readReport(filepath.Join(d, s, "report.json"))
			if err != nil {
				return err
			}
			t := tallyOf(r)
			totals[i].add(t)
			fmt.Printf(" | %3d/%-3d  %3d/%-3d  %4d/%-4d          ", t.folOK, t.fol, t.swOK, t.sw, t.allOK, t.all)
		}
		fmt.Println()
	}
	fmt.Printf("%-8s", "total")
	for _, t := range totals {
		fmt.Printf(" | %3d/%-3d  %3d/%-3d  %4d/%-4d          ", t.folOK, t.fol, t.swOK, t.sw, t.allOK, t.all)
	}
	fmt.Println()
	return nil
}

// example is one dumped turn whose two readings differ and one of which is right.
type example struct {
	set   string
	text  []string
	x     []float64
	cont  bool // the right reading continues the previous agents
	rules bool // the rules chose the right reading
}

// dumped is one line the router writes.
type dumped struct {
	Humans   []string  `json:"humans"`
	Cont     []string  `json:"cont"`
	Own      []string  `json:"own"`
	Rules    []string  `json:"rules"`
	Features []float64 `json:"features"`
	Names    []string  `json:"names"`
}

func load(dumpDir, reports, set string) ([]example, []string, error) {
	r, err := readReport(filepath.Join(reports, set, "report.json"))
	if err != nil {
		return nil, nil, err
	}
	gold := map[string]string{}
	for _, c := range r.Cases {
		var hist []string
		for _, t := range c.Turns {
			hist = append(hist, t.Message)
			k := strings.Join(hist, "\x1f")
			if g, ok := gold[k]; ok && g != key(t.Expected) {
				gold[k] = "?" // the same conversation expected two ways
				continue
			}
			gold[k] = key(t.Expected)
		}
	}
	f, err := os.Open(filepath.Join(dumpDir, set+".jsonl"))
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var out []example
	var names []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var d dumped
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, nil, err
		}
		names = d.Names
		k := strings.Join(d.Humans, "\x1f")
		if seen[k] {
			continue
		}
		seen[k] = true
		g, ok := gold[k]
		if !ok || g == "?" {
			continue
		}
		cont, own, rules := key(d.Cont), key(d.Own), key(d.Rules)
		if g != cont && g != own {
			continue
		}
		out = append(out, example{set: set, text: d.Humans, x: d.Features, cont: g == cont, rules: g == rules})
	}
	return out, names, sc.Err()
}

func train(args []string) error {
	fs := flag.NewFlagSet("train", flag.ExitOnError)
	dumpDir := fs.String("dump", "", "folder of SET.jsonl dumps")
	reports := fs.String("reports", "", "folder of SET/report.json of the same run")
	wdir := fs.String("wdir", "", "folder to write SET.json (weights without SET) and all.json")
	lambda := fs.Float64("l2", 0.01, "L2 penalty")
	drop := fs.String("drop", "", "comma-separated features to leave out")
	balance := fs.Bool("balance", false, "weigh each training set alike, however many turns it has")
	delta := fs.Float64("delta", 0, "how far (in log-odds) the learned decision must lean to overrule the rules")
	onlyCont := fs.Bool("only-cont", false, "let the learned decision only turn the rules' own reading into continuing")
	nested := fs.Bool("nested", false, "choose l2, delta, balance and only-cont inside each training fold (inner leave-one-set-out) and score the held-out set with the choice")
	verbose := fs.Bool("v", false, "print each held-out turn the learned decision gets wrong")
	_ = fs.Parse(args)
	sets := fs.Args()
	var data []example
	var names []string
	for _, s := range sets {
		ex, ns, err := load(*dumpDir, *reports, s)
		if err != nil {
			return err
		}
		data = append(data, ex...)
		if ns != nil {
			names = ns
		}
	}
	mask := make([]bool, len(names))
	for i := range mask {
		mask[i] = true
	}
	for _, d := range strings.Split(*drop, ",") {
		if i := slices.Index(names, d); i >= 0 {
			mask[i] = false
		} else if d != "" {
			return fmt.Errorf("no feature %q", d)
		}
	}
	if *wdir != "" {
		if err := os.MkdirAll(*wdir, 0o755); err != nil {
			return err
		}
	}
	if *nested {
		nestedLOSO(data, mask)
		return nil
	}
	fmt.Printf("%-8s %5s %6s %6s %6s\n", "held out", "turns", "cont", "rules", "learned")
	var tn, tr, tl, tc int
	var groups []string
	for _, s := range sets {
		if !slices.Contains(groups, group(s)) {
			groups = append(groups, group(s))
		}
	}
	for _, s := range append(groups, "all") {
		var tr0, te []example
		for _, e := range data {
			if group(e.set) == group(s) {
				te = append(te, e)
			} else {
				tr0 = append(tr0, e)
			}
		}
		w := fit(tr0, mask, *lambda, *balance)
		if *wdir != "" {
			b, _ := json.Marshal(w)
			for _, m := range append(slices.Clone(sets), "all") {
				if group(m) != s {
					continue
				}
				if err := os.WriteFile(filepath.Join(*wdir, m+".json"), b, 0o644); err != nil {
					return err
				}
			}
		}
		if s == "all" {
			fmt.Println("weights (trained on every set):")
			for i, n := range names {
				fmt.Printf("  %-20s %8.3f\n", n, w[i])
			}
			continue
		}
		rules, learned, cont := 0, 0, 0
		for _, e := range te {
			if e.rules {
				rules++
			}
			if e.cont {
				cont++
			}
			if decide(w, e, *delta, *onlyCont) == e.cont {
				learned++
			} else if *verbose {
				fmt.Printf("    miss %s: %q (want cont=%v, rules right=%v)\n", s, e.text[len(e.text)-1], e.cont, e.rules)
			}
		}
		tn += len(te)
		tr += rules
		tl += learned
		tc += cont
		fmt.Printf("%-8s %5d %6d %6d %6d\n", s, len(te), cont, rules, learned)
	}
	fmt.Printf("%-8s %5d %6d %6d %6d\n", "total", tn, tc, tr, tl)
	return nil
}

// group names the set a run belongs to for leave-one-set-out: the answer sets' files
// (adev1..adev7 over one agents folder, ddev1..ddev4 over the demo's) are one set each.
func group(s string) string {
	for _, g := range []string{"adev", "ddev"} {
		if strings.HasPrefix(s, g) {
			return g
		}
	}
	return s
}

// decide returns whether the learned decision, leaning at least delta away from the rules,
// continues the previous agents.
func decide(w []float64, e example, delta float64, onlyCont bool) bool {
	u := dot(w, e.x)
	rulesCont := e.rules == e.cont // the rules chose the continuing reading
	switch {
	case onlyCont && rulesCont:
		return true
	case u > delta:
		return true
	case u < -delta:
		return false
	}
	return rulesCont
}

func dot(w, x []float64) float64 {
	s := 0.0
	for i := range w {
		s += w[i] * x[i]
	}
	return s
}

// fit trains the logistic regression on standardised features (those mask keeps) and returns
// weights over the raw features: the bias (feature 0) absorbs the means.
func fit(data []example, mask []bool, lambda float64, balance bool) []float64 {
	d := len(mask)
	per := map[string]float64{}
	for _, e := range data {
		per[group(e.set)]++
	}
	weight := func(e example) float64 {
		if !balance {
			return 1
		}
		return float64(len(data)) / float64(len(per)) / per[group(e.set)]
	}
	mean, sd := make([]float64, d), make([]float64, d)
	for _, e := range data {
		for j, v := range e.x {
			mean[j] += v / float64(len(data))
		}
	}
	for _, e := range data {
		for j, v := range e.x {
			sd[j] += (v - mean[j]) * (v - mean[j]) / float64(len(data))
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j])
		if j == 0 || sd[j] < 1e-9 || !mask[j] {
			sd[j] = 0 // left out: the bias is fitted apart
		}
	}
	z := func(e example, j int) float64 {
		if sd[j] == 0 {
			return 0
		}
		return (e.x[j] - mean[j]) / sd[j]
	}
	w := make([]float64, d) // over standardised features; w[0] is the bias
	g := make([]float64, d)
	const steps, rate = 3000, 0.5
	for range steps {
		clear(g)
		for _, e := range data {
			u := w[0]
			for j := 1; j < d; j++ {
				u += w[j] * z(e, j)
			}
			y := 0.0
			if e.cont {
				y = 1
			}
			r := (1/(1+math.Exp(-u)) - y) * weight(e)
			g[0] += r
			for j := 1; j < d; j++ {
				g[j] += r * z(e, j)
			}
		}
		for j := range w {
			g[j] /= float64(len(data))
			if j > 0 {
				g[j] += lambda * w[j]
			}
			w[j] -= rate * g[j]
		}
	}
	raw := make([]float64, d)
	raw[0] = w[0]
	for j := 1; j < d; j++ {
		if sd[j] == 0 {
			continue
		}
		raw[j] = w[j] / sd[j]
		raw[0] -= w[j] * mean[j] / sd[j]
	}
	return raw
}

// setting is one choice of the trainer's knobs.
type setting struct {
	l2, delta         float64
	balance, onlyCont bool
}

// settings are the knobs nestedLOSO chooses among.
func settings() []setting {
	var out []setting
	for _, l2 := range []float64{0.001, 0.01, 0.1} {
		for _, delta := range []float64{0, 1, 2} {
			for _, b := range []bool{false, true} {
				for _, c := range []bool{false, true} {
					out = append(out, setting{l2, delta, b, c})
				}
			}
		}
	}
	return out
}

// looRight returns how many turns of data a setting gets right when each group is held
// out in turn and the rest train it.
func looRight(data []example, mask []bool, st setting) int {
	right := 0
	var groups []string
	for _, e := range data {
		if !slices.Contains(groups, group(e.set)) {
			groups = append(groups, group(e.set))
		}
	}
	for _, g := range groups {
		var tr, te []example
		for _, e := range data {
			if group(e.set) == g {
				te = append(te, e)
			} else {
				tr = append(tr, e)
			}
		}
		w := fit(tr, mask, st.l2, st.balance)
		for _, e := range te {
			if decide(w, e, st.delta, st.onlyCont) == e.cont {
				right++
			}
		}
	}
	return right
}

// nestedLOSO scores each held-out group with the setting that an inner leave-one-set-out
// over the other groups chose (ties go to the larger delta, the one nearer the rules), so
// that the choice of knobs is judged on sets it never saw too.
func nestedLOSO(data []example, mask []bool) {
	var groups []string
	for _, e := range data {
		if !slices.Contains(groups, group(e.set)) {
			groups = append(groups, group(e.set))
		}
	}
	fmt.Printf("%-8s %5s %6s %6s  %s\n", "held out", "turns", "rules", "learned", "setting chosen on the others")
	var tn, tr, tl int
	for _, g := range groups {
		var train, test []example
		for _, e := range data {
			if group(e.set) == g {
				test = append(test, e)
			} else {
				train = append(train, e)
			}
		}
		best, bestRight := setting{}, -1
		for _, st := range settings() {
			r := looRight(train, mask, st)
			if r > bestRight || r == bestRight && st.delta > best.delta {
				best, bestRight = st, r
			}
		}
		w := fit(train, mask, best.l2, best.balance)
		rules, learned := 0, 0
		for _, e := range test {
			if e.rules {
				rules++
			}
			if decide(w, e, best.delta, best.onlyCont) == e.cont {
				learned++
			}
		}
		tn += len(test)
		tr += rules
		tl += learned
		fmt.Printf("%-8s %5d %6d %6d  %+v\n", g, len(test), rules, learned, best)
	}
	fmt.Printf("%-8s %5d %6d %6d\n", "total", tn, tr, tl)
}
