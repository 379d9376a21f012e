package principal_test

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-ai/switchboard/principal"
)

func ExampleDevSigner() {
	signer, err := principal.NewDevSigner(principal.RandomSecret(), "switchboard-dev", "switchboard")
	if err != nil {
		panic(err)
	}
	token, err := signer.Mint("alice", time.Hour)
	if err != nil {
		panic(err)
	}
	raw, err := principal.Bearer("Bearer " + token)
	if err != nil {
		panic(err)
	}
	p, err := signer.Verifier().Verify(context.Background(), raw)
	fmt.Println(p, err)

	_, err = signer.Verifier().Verify(context.Background(), raw+"x")
	fmt.Println(principal.Reason(err))
	// Output:
	// alice <nil>
	// invalid token signature
}

func ExampleTurnTokens() {
	turns, err := principal.NewTurnTokens(principal.RandomSecret(), 0)
	if err != nil {
		panic(err)
	}
	token := turns.Mint("turn-42", "alice")
	p, err := turns.Verify(token, "turn-42")
	fmt.Println(p, err)
	_, err = turns.Verify(token, "turn-43")
	fmt.Println(principal.Reason(err))
	// Output:
	// alice <nil>
	// token not valid for this turn
}

func ExampleRedact() {
	fmt.Println(principal.Redact("auth failed for Authorization: Bearer abc.def-123"))
	// Output:
	// auth failed for Authorization: Bearer [REDACTED]
}

func ExampleCheck() {
	err := principal.Check("bob", principal.Principal("alice"))
	fmt.Println(principal.Reason(err))
	// Output:
	// principal mismatch
}
