package definitions

import "time"

// Defaults for keys a definition leaves out.
const (
	DefaultModel       = "default"
	DefaultTimeout     = 8 * time.Second
	DefaultFanOutCap   = 3
	DefaultBatchWindow = 250 * time.Millisecond
	DefaultMinInterval = 300 * time.Millisecond
)

// defaultParameters is the schema of a tool that takes no arguments: function-calling APIs
// want an object schema even then.
func defaultParameters() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

// applyDefaults fills the keys the file did not set. A key set to an explicit value, even a
// bad one such as "timeout: 0s", is left for validation to judge.
func (d *decoder) applyDefaults(def *Definition) {
	if def.Name == "" {
		def.Name = def.ID
	}
	if !d.given["model"] {
		def.Model = DefaultModel
	}
	if !d.given["timeout"] {
		def.Timeout = DefaultTimeout
	}
	if !d.given["enabled"] {
		def.Enabled = Enabled{Value: true}
	}
	for i := range def.Tools {
		if def.Tools[i].Parameters == nil {
			def.Tools[i].Parameters = defaultParameters()
		}
	}
	if def.Kind != KindOrchestrator {
		return
	}
	if !d.given["fan_out_cap"] {
		def.FanOutCap = DefaultFanOutCap
	}
	if !d.given["rendering.batch_window"] {
		def.Rendering.BatchWindow = DefaultBatchWindow
	}
	if !d.given["rendering.min_interval"] {
		def.Rendering.MinInterval = DefaultMinInterval
	}
}
