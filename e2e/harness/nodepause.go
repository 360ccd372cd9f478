package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// pausedPrefix starts the line a script prints when its plan pauses: the
// test acts (a person answers in Mattermost) and lets it go on.
const pausedPrefix = `{"paused":`

// RunNodeScriptPaused is RunNodeScript for a script whose plan pauses:
// each line it prints starting with {"paused": is handed to onPause, and
// the script goes on once onPause returned (it reads a line on stdin).
// The last line is the script's answer, decoded into out.
func RunNodeScriptPaused(ctx context.Context, script string, args []string, env map[string]string, onPause func(line []byte) error, out any) error {
	cmd, err := nodeCommand(ctx, script, args, env)
	if err != nil {
		return err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr := &capped{max: maxScriptOutput}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	fail := func(err error, last []byte) error {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return &NodeScriptError{Script: script, Err: err, Stdout: string(last), Stderr: stderr.String()}
	}
	lines := bufio.NewReaderSize(stdout, 1<<20)
	var last []byte
	for {
		line, err := lines.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			last = bytes.TrimSpace(line)
		}
		if bytes.HasPrefix(last, []byte(pausedPrefix)) && len(line) > 0 {
			if perr := onPause(last); perr != nil {
				return fail(perr, last)
			}
			if _, werr := io.WriteString(stdin, "go\n"); werr != nil {
				return fail(werr, last)
			}
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err, last)
		}
	}
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		return &NodeScriptError{Script: script, Err: err, Stdout: string(last), Stderr: stderr.String()}
	}
	if !json.Valid(last) {
		return &NodeScriptError{Script: script, Err: fmt.Errorf("did not end with one JSON value on stdout"), Stdout: string(last), Stderr: stderr.String()}
	}
	return json.Unmarshal(last, out)
}
