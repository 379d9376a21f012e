// Package a2aserver serves switchboard as one A2A v0.3 agent: the agent card at
// /.well-known/agent-card.json and a JSON-RPC endpoint at POST /a2a (message/send,
// message/stream, tasks/get, tasks/cancel, tasks/resubscribe). A task is a turn (task id =
// turn id), a context is an episode, and a message's messageId is the turn's idempotency key;
// the bound sub-agents are the card's skills, never reached directly.
//
// A caller the configuration trusts (another switchboard whose remote sub-agent this one is)
// may act for the user that metadata.principal names; that name gets the same checks as a
// token's subject, and who acted for whom is logged with the method and trace id.
//
// Goroutine model: each request runs on its handler's goroutine; turns run detached in the
// turn service, and the streaming methods follow the turn's event log until it completes or
// the caller leaves.
package a2aserver
