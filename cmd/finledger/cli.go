package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one of the binary's subcommands: how it is called and what it does. setup
// declares its flags on fs and returns what runs it with their values.
type command struct {
	name     string
	synopsis string // the flags after the name
	about    string
	details  string // the help's further paragraph; "" for none
	setup    func(fs *flag.FlagSet) runner
	// operand names the one argument the command takes after its flags (fs.Arg(0));
	// "" for none.
	operand string
	// instance marks the commands that run an instance of the service, which holds
	// memory for as long as it runs (see instanceMemoryLimit).
	instance bool
}

// runner runs a command whose flags are parsed.
type runner func(ctx context.Context, cfg config, out io.Writer) error

// Exit codes, documented in docs/operating.md ("Commands").
const (
	exitOK        = 0
	exitFailed    = 1 // the command ran and failed: a database unreachable, a listener taken, ...
	exitUsage     = 2 // an unknown command, a bad flag or a bad setting: nothing was done
	exitDifferent = 3 // verify found a read model or snapshot that differs from the log, heads --check a head not held
)

// usageError is a mistake in how the binary was called: an unknown command, a bad flag
// or a setting it cannot use.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// errDiffers is verify's finding that the read models or snapshots differ from the log.
var errDiffers = errors.New("differs from a replay of the event log")

// exitCode is the process's exit status for what a command returned.
func exitCode(err error) int {
	var usage usageError
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &usage):
		return exitUsage
	case errors.Is(err, errDiffers), errors.Is(err, errHeadsDiffer):
		return exitDifferent
	}
	return exitFailed
}

// lookup finds a command by name.
func lookup(name string) (command, bool) {
	for _, c := range subcommands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// parse reads a command's flags and returns what runs it; -h prints its help.
func (c command) parse(args []string, out io.Writer) (runner, error) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	run := c.setup(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandHelp(out, c)
			return nil, flag.ErrHelp
		}
		return nil, usageError{fmt.Errorf("%s: %w (see `finledger help %s`)", c.name, err, c.name)}
	}
	if c.operand != "" && fs.NArg() != 1 {
		return nil, usageError{fmt.Errorf("%s takes one %s after its flags (see `finledger help %s`)", c.name, c.operand, c.name)}
	}
	if c.operand == "" && fs.NArg() > 0 {
		return nil, usageError{fmt.Errorf("%s takes no argument %q (see `finledger help %s`)", c.name, fs.Arg(0), c.name)}
	}
	return run, nil
}

// help prints the list of commands or, given a command's name, its help.
func help(out io.Writer, args []string) error {
	if len(args) > 0 {
		c, ok := lookup(args[0])
		if !ok {
			return usageError{fmt.Errorf("no command %q; `finledger help` lists them", args[0])}
		}
		commandHelp(out, c)
		return nil
	}
	fmt.Fprint(out, "finledger: personal and team finances, an event-sourced ledger.\n\nUsage: finledger <command> [flags]\n\nCommands:\n")
	for _, c := range subcommands() {
		fmt.Fprintf(out, "  %-9s %s\n", c.name, c.about)
	}
	fmt.Fprint(out, `
Settings are FINLEDGER_* environment variables: `+"`finledger config`"+` shows them.
`+"`finledger help <command>`"+` tells more of a command.
Exit codes: 0 done, 1 failed, 2 bad command, flag or setting, 3 verify found a difference.
`)
	return nil
}

func commandHelp(out io.Writer, c command) {
	fmt.Fprintf(out, "Usage: finledger %s", c.name)
	if c.synopsis != "" {
		fmt.Fprintf(out, " %s", c.synopsis)
	}
	fmt.Fprintf(out, "\n\n%s.\n", strings.ToUpper(c.about[:1])+c.about[1:])
	if c.details != "" {
		fmt.Fprintf(out, "\n%s\n", c.details)
	}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.setup(fs)
	flags := 0
	fs.VisitAll(func(*flag.Flag) { flags++ })
	if flags > 0 {
		fmt.Fprint(out, "\nFlags:\n")
		fs.SetOutput(out)
		fs.PrintDefaults()
	}
}
