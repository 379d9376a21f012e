package evals

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// progress draws "[#####.....] 37/120 cases" on a terminal, redrawn in place, and plain
// lines about every tenth of the way otherwise (CI logs). A nil writer draws nothing. Safe for
// concurrent use.
type progress struct {
	w     io.Writer
	tty   bool
	total int
	// note, when set, adds to each line what slows the run ("(3 waits for the server's
	// rate limit ...)").
	note func() string

	mu      sync.Mutex
	done    int
	printed int // done when the last plain line was written
}

const barWidth = 30

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, tty: isTerminal(w), total: total}
}

// isTerminal reports whether w is a character device, without a terminal library.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (p *progress) start() {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw()
}

// step counts one finished case.
func (p *progress) step() {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	every := max(1, p.total/10)
	if p.tty || p.done == p.total || p.done-p.printed >= every {
		p.draw()
	}
}

// finish ends the bar's line on a terminal.
func (p *progress) finish() {
	if p == nil || p.w == nil || !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.w)
}

func (p *progress) draw() {
	p.printed = p.done
	if !p.tty {
		fmt.Fprintf(p.w, "evals: %d/%d cases%s\n", p.done, p.total, p.noted())
		return
	}
	filled := 0
	if p.total > 0 {
		filled = p.done * barWidth / p.total
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d cases%s", strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), p.done, p.total, p.noted())
}

func (p *progress) noted() string {
	if p.note == nil {
		return ""
	}
	return p.note()
}
