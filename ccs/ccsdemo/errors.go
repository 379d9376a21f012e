package ccsdemo

import "errors"

// ErrFault is wrapped by every error reading a fault ([ParseFault], [Fault.UnmarshalJSON]).
var ErrFault = errors.New("fault")
