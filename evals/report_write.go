package evals

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Report file names inside the report directory.
const (
	ReportJSON     = "report.json"
	ReportMarkdown = "report.md"
	ReportHTML     = "report.html"
)

// WriteReports writes report.json, report.md and report.html into dir, creating it.
func WriteReports(dir string, r *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("evals: report dir: %w", err)
	}
	js, err := r.JSON()
	if err != nil {
		return err
	}
	var md, page bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		return err
	}
	if err := r.WriteHTML(&page); err != nil {
		return err
	}
	for name, data := range map[string][]byte{ReportJSON: js, ReportMarkdown: md.Bytes(), ReportHTML: page.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("evals: write %s: %w", name, err)
		}
	}
	return nil
}

// JSON is report.json: indented, HTML characters left as they are.
func (r *Report) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("evals: encode report: %w", err)
	}
	return b.Bytes(), nil
}
