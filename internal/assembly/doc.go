// Package assembly wires switchboard from its configuration: definitions, models, the CCS
// client (embedded demo or remote), the sub-agent runtimes injected into the orchestrator, the
// store, the turn service and the HTTP surfaces. It is the one place the parts meet; the root
// package fills its [Input] from its Options and adds the server's lifecycle.
//
// Besides [New] it owns what lives as long as the service: reloading the agents folder
// ([App.Reload], [App.Watch]), the lease heartbeat that ends turns dead processes left
// running, and the dev-only fault injection route. Its tests run the whole service end to end
// over httptest servers.
package assembly
