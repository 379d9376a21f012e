package answer

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// pieceKind is the shape of one narrated tool result, which decides how it is introduced.
type pieceKind int

const (
	pieceProse   pieceKind = iota // sentences, shown as they are
	pieceList                     // "I found <found>:" and bullet lines
	pieceFacts                    // one line of facts about a topic, maybe followed by lists
	pieceFailure                  // an acknowledgment of missing data, without its final period
)

// Piece is one tool result, narrated but not yet placed in the reply.
type Piece struct {
	kind  pieceKind
	found string // pieceList: what was found, "5 offers"
	text  string // pieceList: the bullets; pieceFacts: the facts line(s); otherwise the sentence
	topic string // what it is about, "your points balance"; "" when unknown
	plain bool   // pieceFailure: the bare acknowledgment, with no note after it
	// missing marks a list that holds nothing about the thing the request names ("no return
	// for the socks"): beside a result that does, it is left out.
	missing bool
	// unheld marks a result that holds nothing about the thing asked ("I couldn't find
	// anything about theft in your claims"): beside a result that does, it is left out,
	// even when the request names its tool.
	unheld bool
	// offTopic marks data that holds none of the words the request asks with: beside a
	// result that holds some, it is left out.
	offTopic bool
	// absent names, in the request's words, what an offTopic piece's data holds nothing
	// about ("potty training"), "" when unknown, and absentIn the topic of that data.
	absent, absentIn string
	named            bool // the request names what the piece's tool is for
	narrowed         bool // pieceList: the request picked some of the list's records
	// noneOf and noneFor are what a "no <noneOf> for <noneFor>" answer says is missing:
	// several such answers about one thing are said as one.
	noneOf, noneFor string
}

// noneFound says that no record, a noun, is for thing.
func noneFound(noun, thing string) Piece {
	return Piece{kind: pieceProse, text: fmt.Sprintf("I found no %s for %s.", noun, thing), missing: true, noneOf: noun, noneFor: thing}
}

// sayNoneOnce turns several answers that one thing has no record into one sentence: "I found
// no event or order for taylor swift", not the same sentence per tool.
func sayNoneOnce(found []Piece) []Piece {
	thing := noneOfAll(found)
	if len(found) < 2 || thing == "" {
		return found
	}
	var nouns []string
	for _, p := range found {
		if !slices.Contains(nouns, p.noneOf) {
			nouns = append(nouns, p.noneOf)
		}
	}
	or := nouns[len(nouns)-1]
	if len(nouns) > 1 {
		or = strings.Join(nouns[:len(nouns)-1], ", ") + " or " + or
	}
	return []Piece{noneFound(or, thing)}
}

// noneOfAll returns the thing every one of pieces says no record is for, or "".
func noneOfAll(pieces []Piece) string {
	if len(pieces) == 0 || slices.ContainsFunc(pieces, func(p Piece) bool { return p.noneFor == "" || p.noneFor != pieces[0].noneFor }) {
		return ""
	}
	return pieces[0].noneFor
}

// OffTopic reports whether the piece's data holds none of the words the request asks with.
func (s Piece) OffTopic() bool { return s.offTopic }

func (s Piece) empty() bool { return strings.TrimSpace(s.text) == "" && s.found == "" }

// withCaveat appends a caveat sentence: on its own line after a list, so that it is not
// read as part of the last item.
func (s Piece) withCaveat(caveat string) Piece {
	if s.kind == pieceList || strings.Contains(s.text, "\n") {
		s.text += "\n" + caveat
	} else {
		s.text += " " + caveat
	}
	return s
}

// standalone renders the piece as a whole reply.
func (s Piece) standalone() string {
	switch s.kind {
	case pieceList:
		return "I found " + s.found + ":\n" + s.text
	case pieceFacts:
		if s.topic != "" {
			return lang.Capitalise(s.topic) + ": " + s.text
		}
		return lang.Capitalise(s.text)
	case pieceFailure:
		return s.text + "."
	}
	return s.text
}

// Transitions that introduce the second, third... result of a reply.
var (
	transitions = []string{"Also, ", "And ", "On top of that, "}
	onTopic     = []string{"And on ", "Also, on ", "As for "}
)

// placed renders the piece as the i-th result of a reply with several; afterBut means it
// follows "I couldn't get X right now, but ".
func (s Piece) placed(i int, afterBut bool) string {
	switch s.kind {
	case pieceList:
		if i > 0 {
			return "I also found " + s.found + ":\n" + s.text
		}
		return "I found " + s.found + ":\n" + s.text
	case pieceFacts:
		what := cmp.Or(s.topic, "what I found")
		switch {
		case afterBut:
			return "here's " + what + ": " + s.text
		case i == 0:
			return "Here's " + what + ": " + s.text
		case s.topic != "":
			return onTopic[(i-1)%len(onTopic)] + s.topic + ": " + s.text
		}
		return transitions[(i-1)%len(transitions)] + s.text
	}
	titled := opensItself(s.text)
	switch {
	case afterBut:
		return "here's what I found. " + s.text
	case i == 0 && titled:
		return s.text
	case i == 0 && s.topic != "":
		return "Here's what I found on " + s.topic + ": " + lowerFirst(s.text)
	case i == 0:
		return "Here's what I found. " + s.text
	case s.topic != "" && !titled:
		return onTopic[(i-1)%len(onTopic)] + s.topic + ": " + lowerFirst(s.text)
	}
	return transitions[(i-1)%len(transitions)] + lowerFirst(s.text)
}

// opensItself reports whether prose already reads as an opener ("I found...", "Here's...").
func opensItself(text string) bool {
	return strings.HasPrefix(text, "I ") || strings.HasPrefix(text, "I'") || strings.HasPrefix(text, "I’") ||
		strings.HasPrefix(text, "Here")
}

// prosePiece reads a text result. The shapes this model narrates data in ("I found 5
// offers:" and bullets, "Your points balance: ...") are recognised, so that a sub-agent's
// reply can be introduced like data; anything else stays prose about t.
func prosePiece(text string, t topic) Piece {
	first, rest, multi := strings.Cut(text, "\n")
	if found, ok := strings.CutPrefix(first, "I found "); ok && multi && strings.HasSuffix(found, ":") &&
		strings.HasPrefix(rest, "- ") {
		return Piece{kind: pieceList, found: strings.TrimSuffix(found, ":"), text: rest}
	}
	if title, ok := strings.CutPrefix(first, "Your "); ok {
		if name, facts, ok := strings.Cut(title, ": "); ok && name != "" && facts != "" && !strings.ContainsAny(name, ".!?:") &&
			len(strings.Fields(name)) <= maxTitleWords {
			return Piece{kind: pieceFacts, topic: "your " + name, text: strings.TrimPrefix(text, "Your "+name+": ")}
		}
	}
	return Piece{kind: pieceProse, text: text, topic: t.noun}
}
