package evals

import "errors"

var (
	// ErrInvalidDataset is matched by every [*LoadError]: a dataset was read but is wrong.
	ErrInvalidDataset = errors.New("evals: invalid dataset")
	// ErrGates is matched by the error of [Report.GateError] when at least one gate failed.
	ErrGates = errors.New("evals: gates failed")
	// ErrNoFaultInjection means a case needs faults but the target cannot inject them.
	ErrNoFaultInjection = errors.New("evals: target cannot inject faults")
	// ErrTarget wraps a failure to run a turn against a target (transport, auth, protocol).
	ErrTarget = errors.New("evals: target")
	// ErrConfig means [Config] is incomplete or inconsistent.
	ErrConfig = errors.New("evals: bad config")
)
