package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-ai/switchboard/internal/assembly"
	"github.com/switchboard-ai/switchboard/internal/audit"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/principal"
)

// auditCmd prints the audit log of the store the config names, oldest entry first.
func auditCmd(ctx context.Context, args []string, stdout, stderr io.Writer, lookup env) error {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	since := fs.String("since", "", "only entries from this long ago (2h, 7d) or from this time on (2026-11-27T12:00:00Z)")
	who := fs.String("principal", "", "only entries about this user")
	typ := fs.String("type", "", "only entries of this type: "+typeNames())
	asJSON := fs.Bool("json", false, "print one JSON object a line instead of a table")
	cfgPath := fs.String("config", "", "the config file serve uses (for its store)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: switchboard audit [--since 2h|TIME] [--principal NAME] [--type TYPE] [--json] [--config FILE]\n\n"+
			"Prints the audit log kept in the store serve uses (store.driver, store.dsn, or\n"+
			"SWITCHBOARD_STORE_DRIVER and SWITCHBOARD_STORE_DSN), oldest entry first.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("audit takes no arguments, only flags (see switchboard audit --help)")
	}
	q := audit.Query{Principal: principal.Principal(*who), Type: audit.Type(*typ), Limit: audit.MaxLimit}
	if *typ != "" && !slices.Contains(audit.Types, q.Type) {
		return usageError("audit --type %q: want one of %s", *typ, typeNames())
	}
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			return usageError("audit --since: %v", err)
		}
		q.Since = t
	}
	st, err := auditStoreConfig(*cfgPath, lookup)
	if err != nil {
		return err
	}
	r, closeStore, err := assembly.OpenAuditReader(ctx, st)
	if err != nil {
		return err
	}
	defer closeStore()
	out := newAuditPrinter(stdout, *asJSON)
	for {
		page, err := r.ReadAudit(ctx, q)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			return out.close()
		}
		for _, e := range page {
			if err := out.print(e); err != nil {
				return err
			}
		}
		q.After = page[len(page)-1].Seq
	}
}

func typeNames() string {
	names := make([]string, len(audit.Types))
	for i, t := range audit.Types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// auditStoreConfig is the store section of the config at path, with the environment applied
// as serve applies it. Only the store's settings are read: a model key that is not set on
// this machine must not keep an operator from reading the log.
func auditStoreConfig(path string, lookup env) (config.Store, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return config.Store{}, err
	}
	st := cfg.Store
	if v, ok := lookup("SWITCHBOARD_STORE_DRIVER"); ok && v != "" {
		st.Driver = v
	}
	if v, ok := lookup("SWITCHBOARD_STORE_DSN"); ok && v != "" {
		st.DSN = v
	}
	if st.DSNEnv != "" {
		v, ok := lookup(st.DSNEnv)
		if !ok || v == "" {
			return config.Store{}, fmt.Errorf("config: store.dsn_env names env var %s, which is not set", st.DSNEnv)
		}
		st.DSN = v
	}
	return st, nil
}

// parseSince reads --since: a duration back from now (Go's, such as 90m or 2h30m, or whole
// days such as 7d), or a time: RFC 3339, or a UTC date or date and time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 && n <= 100000 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q is negative: give how long ago, such as 2h", s)
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is neither a duration (2h, 7d) nor a time (2026-11-27T12:00:00Z, 2026-11-27)", s)
}

// auditPrinter writes entries as a table or as JSON lines.
type auditPrinter struct {
	w     io.Writer
	json  *json.Encoder
	table *tabwriter.Writer
	rows  int
}

func newAuditPrinter(w io.Writer, asJSON bool) *auditPrinter {
	if asJSON {
		return &auditPrinter{w: w, json: json.NewEncoder(w)}
	}
	return &auditPrinter{w: w, table: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
}

func (p *auditPrinter) print(e audit.Entry) error {
	if p.json != nil {
		return p.json.Encode(e)
	}
	if p.rows == 0 {
		fmt.Fprintln(p.table, "TIME\tTYPE\tPRINCIPAL\tDETAIL")
	}
	p.rows++
	who := string(e.Principal)
	if who == "" {
		who = "-"
	}
	detail, err := audit.EncodeDetail(e.Detail)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(p.table, "%s\t%s\t%s\t%s\n", e.Time.UTC().Format("2006-01-02T15:04:05.000Z"), e.Type(), who, detailText(detail))
	return err
}

// close flushes the table; with no entry it says so on its own line, so that an empty
// result is not mistaken for a failure.
func (p *auditPrinter) close() error {
	if p.table == nil {
		return nil
	}
	if p.rows == 0 {
		_, err := fmt.Fprintln(p.w, "no audit entries match")
		return err
	}
	return p.table.Flush()
}

// detailText renders a detail's JSON object as key=value pairs in its own order: a list as
// its items joined by commas, an object inside a list as its values joined by colons
// (agents=shop:ok,rewards:unavailable), an object as key:value pairs (limits=turns_running:2).
func detailText(detail []byte) string {
	dec := json.NewDecoder(bytes.NewReader(detail))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return string(detail)
	}
	var parts []string
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return string(detail)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return string(detail)
		}
		parts = append(parts, fmt.Sprint(key)+"="+valueText(v, false))
	}
	return strings.Join(parts, " ")
}

func valueText(v any, inList bool) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		items := make([]string, len(v))
		for i, it := range v {
			items[i] = valueText(it, true)
		}
		return strings.Join(items, ",")
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		items := make([]string, len(keys))
		for i, k := range keys {
			if inList {
				items[i] = valueText(v[k], true)
			} else {
				items[i] = k + ":" + valueText(v[k], true)
			}
		}
		if inList {
			return strings.Join(items, ":")
		}
		return strings.Join(items, ",")
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
