// Command arrowpq inspects, reads and converts Parquet files.
//
// Usage:
//
//	arrowpq <command> [flags] FILE...
//
// Run "arrowpq help" for the list of commands and "arrowpq <command> --help"
// for the flags of one command. Flags may come before or after the file
// arguments.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// command is one subcommand of the tool.
type command struct {
	name    string
	summary string
	usage   string // argument synopsis after the command name
	// setup declares the command's flags and returns the function that runs
	// it with the positional arguments.
	setup func(fs *flag.FlagSet) func(args []string, out io.Writer) error
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// usageError is a mistake in how the tool was called; it prints the
// command's usage after the message.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the tool and returns its exit status: 0 on success, 1 on a
// runtime error, 2 on a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printTopUsage(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				fs := newFlagSet(c, stdout)
				c.setup(fs)
				fs.Usage()
				return 0
			}
		}
		printTopUsage(stdout)
		return 0
	case "version", "--version":
		fmt.Fprintf(stdout, "arrowpq version %s\n", version)
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "arrowpq: unknown command %q; run 'arrowpq help' for the list\n", name)
		return 2
	}
	fs := newFlagSet(c, stdout)
	exec := c.setup(fs)
	// The flag package prints the usage itself on a parse error; it goes
	// nowhere here so that help is printed once, on stdout, and a mistake
	// gets one line and a pointer to --help on stderr.
	fs.SetOutput(io.Discard)
	positional, err := parseInterleaved(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fs.Usage()
		return 0
	}
	if err != nil {
		printUsageError(stderr, c, err.Error())
		return 2
	}
	if err := exec(positional, stdout); err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			printUsageError(stderr, c, ue.msg)
			return 2
		}
		fmt.Fprintf(stderr, "arrowpq %s: %s%s\n", c.name, errorText(err), flagHint(err, fs))
		return 1
	}
	return 0
}

func printUsageError(w io.Writer, c *command, msg string) {
	fmt.Fprintf(w, "arrowpq %s: %s\n", c.name, msg)
	fmt.Fprintf(w, "usage: arrowpq %s %s (see 'arrowpq %s --help')\n", c.name, c.usage, c.name)
}

// errorText renders err on one line without the "arrowpq: " that the
// library's errors start with, since the line already starts with
// "arrowpq <command>: ".
func errorText(err error) string {
	return strings.TrimPrefix(oneLine(err.Error()), "arrowpq: ")
}

var longFlagRE = regexp.MustCompile(`(?m)^(  )-(\w\w)`)

func newFlagSet(c *command, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(out)
	registerCryptFlags(fs, c.name) // cryptflags.go
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: arrowpq %s %s\n\n%s\n", c.name, c.usage, c.summary)
		var n int
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintf(w, "\nflags:\n")
			// PrintDefaults writes "  -name"; long names are shown as
			// they are usually typed, "--name" (both work).
			var b strings.Builder
			fs.SetOutput(&b)
			fs.PrintDefaults()
			fs.SetOutput(w)
			io.WriteString(w, longFlagRE.ReplaceAllString(b.String(), "$1--$2"))
		}
	}
	return fs
}

// parseInterleaved parses flags that may appear before, between and after
// positional arguments. A lone "--" ends flag parsing.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		// fs.Parse stops at the first positional argument or after "--".
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func printTopUsage(w io.Writer) {
	fmt.Fprintf(w, "arrowpq bridges Apache Parquet and Apache Arrow.\n\nusage: arrowpq <command> [flags] [arguments]\n\ncommands:\n")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	pad := len("version")
	for _, name := range names {
		pad = max(pad, len(name))
	}
	for _, name := range names {
		// The first line of the summary; the rest is for --help.
		first, _, _ := strings.Cut(commands[name].summary, "\n")
		fmt.Fprintf(w, "  %-*s %s\n", pad, name, first)
	}
	fmt.Fprintf(w, "  %-*s %s\n", pad, "version", "print the version")
	fmt.Fprintf(w, "\nRun 'arrowpq <command> --help' for the flags of a command.\n")
}

// oneLine keeps an error message on one terminal line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// version is the arrowpq version printed by "arrowpq version".
const version = "0.1.0-dev"
