// Package style tells, from a message's sentence vector (package encoder), whether it asks a
// business for something or asks it nothing: a general question, advice on life, chat. It is
// a logistic regression that ./gen trains on the messages in gen/service.txt and
// gen/aside.txt, which were written for it; none is a message of an evaluation set. The
// weights are embedded, so it needs no file or network at run time, and it is deterministic.
//
// It reads style, not topic, as far as a sentence vector lets it: half the asides it learnt
// from use the words of a service ("how do airlines price tickets"). It is one piece of
// evidence, for the router to weigh with others.
package style

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
)

//go:generate go run ./gen -dir gen -out weights.bin

//go:embed weights.bin
var data []byte

// weights are the classifier's, one per dimension of a sentence vector, then the bias.
var weights = sync.OnceValues(func() ([]float32, error) {
	if len(data)%4 != 0 || len(data) < 8 {
		return nil, fmt.Errorf("style: weights.bin holds %d bytes, not float32s", len(data))
	}
	w := make([]float32, len(data)/4)
	for i := range w {
		w[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return w, nil
})

// Aside returns the probability that the message whose sentence vector is v asks nothing of
// a service; 0 when v does not have the weights' length or they cannot be read.
func Aside(v []float32) float64 {
	w, err := weights()
	if err != nil || len(v) != len(w)-1 {
		return 0
	}
	z := float64(w[len(w)-1])
	for i, x := range v {
		z += float64(w[i]) * float64(x)
	}
	return 1 / (1 + math.Exp(-z))
}
