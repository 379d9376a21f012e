package offline

import "errors"

// ErrNoMessages is returned by [Model.GenerateContent] when it is given no messages.
var ErrNoMessages = errors.New("offline: no messages")
