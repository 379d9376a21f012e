package principal

import (
	"crypto/subtle"
	"fmt"
)

// Check verifies that a CCS envelope's principal is the principal the call was made for. It
// returns an error wrapping [ErrMismatch] when they differ or either is empty;
// the caller must then suppress the payload, count and alert, and not retry. The error text
// names neither principal, so it is safe to log.
func Check(envelopePrincipal string, invoking Principal) error {
	switch {
	case invoking == "":
		return fmt.Errorf("%w: no invoking principal", ErrMismatch)
	case envelopePrincipal == "":
		return fmt.Errorf("%w: envelope carries no principal", ErrMismatch)
	case subtle.ConstantTimeCompare([]byte(envelopePrincipal), []byte(invoking)) != 1:
		return fmt.Errorf("%w: envelope principal differs from the invoking principal", ErrMismatch)
	}
	return nil
}
