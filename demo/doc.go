// Package demo holds the demo Agent Definitions: the concierge orchestrator and its shop,
// rewards, support and travel sub-agents, whose data the embedded demo CCS (package
// ccs/ccsdemo) serves. The binary uses them when it is given no agents folder of its own.
// Load them with definitions.LoadFS(demo.Agents, ".").
//
// They are the demo, not a place for your own agents: copy them to a folder of yours
// (`switchboard init DIR` does) and point --agents there.
package demo
