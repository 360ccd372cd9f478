// Package refusal holds the one way anything in the plugin says no to the
// model: what is wrong, and the call to make instead. The catalogue turns it
// into a tool error; every other error is a failure inside Mattermost.
package refusal

import (
	"errors"
	"fmt"
	"strings"
)

// Error is a refusal the model can act on.
type Error struct {
	// What is wrong, in a sentence the model reads.
	What string
	// Next is the call or change that would work; it may be empty when What
	// already says it.
	Next string
}

func (e *Error) Error() string {
	if e.Next == "" {
		return e.What
	}
	return strings.TrimRight(e.What, " ") + " " + e.Next
}

// New is a refusal saying what is wrong and what to do next.
func New(what, next string) *Error { return &Error{What: what, Next: next} }

// Newf is a refusal whose one formatted text says both.
func Newf(format string, a ...any) *Error { return &Error{What: fmt.Sprintf(format, a...)} }

// As finds a refusal in err's chain.
func As(err error) (*Error, bool) {
	var r *Error
	ok := errors.As(err, &r)
	return r, ok
}
