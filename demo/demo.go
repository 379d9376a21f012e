package demo

import "embed"

// Agents holds every *.yaml file of this folder.
//
//go:embed *.yaml
var Agents embed.FS
