package evals

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"golang.org/x/sync/errgroup"
)

// Judge asks a model to rate each reply from 1 to 5 against a short rubric. It is optional:
// without one, the report says the judge was skipped. Safe for concurrent use if its model is.
type Judge struct {
	model llms.Model
	name  string
}

// NewJudge returns a judge over model; name (the config alias) is shown in reports.
func NewJudge(model llms.Model, name string) *Judge { return &Judge{model: model, name: name} }

// JudgeInput is one turn to rate.
type JudgeInput struct {
	Message string
	Reply   string
	// Failing are sub-agents whose data was made unavailable: a good reply says so plainly.
	Failing []string
}

// JudgeSummary reports the judge's scores. Status is "skipped" (no judge configured), "ok",
// or "failed" (every call failed).
type JudgeSummary struct {
	Status    string         `json:"status"`
	Model     string         `json:"model,omitempty"`
	Scored    int            `json:"scored"`
	Errors    int            `json:"errors"`
	Mean      float64        `json:"mean"`
	Histogram map[string]int `json:"histogram,omitempty"` // "1".."5" -> turns
}

const judgeRubric = `You grade one reply of a customer assistant for shopping deals, loyalty rewards, orders and account support, and travel.
Score from 1 to 5:
5 = answers exactly what was asked, clearly and briefly; any missing data is acknowledged in plain words.
4 = answers the question with small flaws (a little wordy, a minor omission).
3 = partly answers, or is hard to follow.
2 = mostly off-topic, or hides that some data was unavailable.
1 = wrong, empty, or shows technical details such as error codes, ids or raw data.
Reply with the line "SCORE: <n>" followed by one short sentence of reason.`

var scorePattern = regexp.MustCompile(`(?i)score\s*[:=]?\s*\**\s*([1-5])\b`)
var bareDigit = regexp.MustCompile(`\b([1-5])\b`)

var errNoScore = errors.New("judge answer holds no score")

// Score rates one reply.
func (j *Judge) Score(ctx context.Context, in JudgeInput) (int, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "User message:\n%s\n\nAssistant reply:\n%s\n", in.Message, in.Reply)
	if len(in.Failing) > 0 {
		fmt.Fprintf(&b, "\nData from these specialists was unavailable during this turn: %s.\n", strings.Join(in.Failing, ", "))
	}
	resp, err := j.model.GenerateContent(ctx, []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, judgeRubric),
		llms.TextParts(llms.ChatMessageTypeHuman, b.String()),
	}, llms.WithTemperature(0))
	if err == nil {
		err = ctx.Err() // some providers return a partial answer with a nil error when cancelled
	}
	if err != nil {
		return 0, fmt.Errorf("judge: %w", err)
	}
	var text strings.Builder
	for _, c := range resp.Choices {
		text.WriteString(c.Content)
	}
	return parseScore(text.String())
}

func parseScore(s string) (int, error) {
	m := scorePattern.FindStringSubmatch(s)
	if m == nil {
		m = bareDigit.FindStringSubmatch(s)
	}
	if m == nil {
		return 0, errNoScore
	}
	return strconv.Atoi(m[1])
}

// judgeAll rates every turn with a reply, concurrently up to limit.
func judgeAll(ctx context.Context, j *Judge, runs []*caseRun, limit int) JudgeSummary {
	if j == nil {
		return JudgeSummary{Status: "skipped"}
	}
	var g errgroup.Group
	g.SetLimit(max(1, limit))
	for _, cr := range runs {
		for i := range cr.turns {
			tr := &cr.turns[i]
			if tr.err != nil || strings.TrimSpace(tr.out.Reply) == "" {
				continue
			}
			in := JudgeInput{Message: cr.c.Turns[i].Message, Reply: tr.out.Reply, Failing: cr.c.Turns[i].AcknowledgeFailure}
			g.Go(func() error {
				tr.judge, tr.judgeErr = j.Score(ctx, in)
				return nil
			})
		}
	}
	_ = g.Wait()
	sum := JudgeSummary{Status: "ok", Model: j.name, Histogram: map[string]int{}}
	total := 0
	for _, cr := range runs {
		for _, tr := range cr.turns {
			switch {
			case tr.judgeErr != nil:
				sum.Errors++
			case tr.judge > 0:
				sum.Scored++
				total += tr.judge
				sum.Histogram[strconv.Itoa(tr.judge)]++
			}
		}
	}
	if sum.Scored > 0 {
		sum.Mean = round3(float64(total) / float64(sum.Scored))
	} else if sum.Errors > 0 {
		sum.Status = "failed"
	}
	return sum
}
