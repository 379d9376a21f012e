package route

import (
	"encoding/json"
	"os"
	"strconv"
	"sync"
)

// Experiment only: SWITCHBOARD_FOLLOW_DUMP appends, per turn whose two readings differ, the
// features and readings as JSON lines; SWITCHBOARD_FOLLOW_WEIGHTS loads a JSON array of
// weights (one per feature, in followFeatureNames' order) that then decide.
var (
	exptMu      sync.Mutex
	exptDump    = os.Getenv("SWITCHBOARD_FOLLOW_DUMP")
	exptWeights = func() []float64 {
		path := os.Getenv("SWITCHBOARD_FOLLOW_WEIGHTS")
		if path == "" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			panic(err)
		}
		var w []float64
		if err := json.Unmarshal(data, &w); err != nil {
			panic(err)
		}
		return w
	}()
	exptDelta, _     = strconv.ParseFloat(os.Getenv("SWITCHBOARD_FOLLOW_DELTA"), 64)
	exptOverOther    = os.Getenv("SWITCHBOARD_FOLLOW_OVER_OTHER") != ""
	exptOnlyCont     = os.Getenv("SWITCHBOARD_FOLLOW_ONLY_CONT") != ""
	exptFeatureNames = followFeatureNames
)

func (c *conversation) dumpFollow(fc followCase) {
	names := make([]string, len(c.p.ix.texts))
	for d, ts := range c.p.ix.texts {
		names[d] = ts[0]
	}
	tools := func(in []Intent) []string {
		out := []string{}
		for _, t := range toolsOf(in) {
			out = append(out, names[t])
		}
		return out
	}
	line, _ := json.Marshal(map[string]any{"humans": c.humans, "cont": tools(fc.cont), "own": tools(fc.own),
		"rules": tools(fc.rules), "features": fc.features, "names": exptFeatureNames})
	exptMu.Lock()
	defer exptMu.Unlock()
	f, err := os.OpenFile(exptDump, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, _ = f.Write(append(line, '\n'))
		_ = f.Close()
	}
}
