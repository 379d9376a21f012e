package route

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// arithmeticQuestion matches a bare sum such as "what's 15 times 12", "100 / 4?" or "15% of
// 240": small talk the assistant answers itself, whatever the numbers happen to match in a tool.
var arithmeticQuestion = regexp.MustCompile(`^(?:(?:what|whats|what's|what is|how much is|calculate|compute|quick maths?:?)\s+)?` +
	`(-?\d+(?:\.\d+)?)\s*(\+|-|\*|x|×|/|÷|plus|minus|times|multiplied by|divided by|over|% of|percent of)\s*(-?\d+(?:\.\d+)?)\s*[?!.=]*$`)

// arithmetic answers a message that is only a sum of two numbers; ok is false for any
// other message.
func arithmetic(text string) (answer string, ok bool) {
	m := arithmeticQuestion.FindStringSubmatch(strings.Join(strings.Fields(lang.Normalise(text)), " "))
	if m == nil {
		return "", false
	}
	a, errA := strconv.ParseFloat(m[1], 64)
	b, errB := strconv.ParseFloat(m[3], 64)
	if errA != nil || errB != nil {
		return "", false
	}
	var v float64
	switch m[2] {
	case "+", "plus":
		v = a + b
	case "-", "minus":
		v = a - b
	case "*", "x", "×", "times", "multiplied by":
		v = a * b
	case "% of", "percent of":
		v = a * b / 100
	default:
		if b == 0 {
			return "That one has no answer: nothing can be divided by zero.", true
		}
		v = a / b
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "", false
	}
	sum := m[1] + " " + m[2] + " " + m[3]
	if m[2] == "% of" {
		sum = m[1] + "% of " + m[3]
	}
	return sum + " is " + strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64) + ".", true
}
