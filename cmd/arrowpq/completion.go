package main

// Shell completions, generated from the command table: the commands, the
// flags each command's setup declares, and the fixed values of some
// flags. docs/cli.md says why the parser is not cobra or kong.

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

func init() {
	register(&command{
		name: "completion",
		summary: "print a shell completion script for bash, zsh or fish\n\n" +
			"  bash: source <(arrowpq completion bash)         (or save it in ~/.local/share/bash-completion/completions/arrowpq)\n" +
			"  zsh:  source <(arrowpq completion zsh)          (or save it as _arrowpq in a directory of $fpath)\n" +
			"  fish: arrowpq completion fish | source          (or save it in ~/.config/fish/completions/arrowpq.fish)",
		usage: "bash|zsh|fish",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			return func(args []string, out io.Writer) error {
				if len(args) != 1 {
					return &usageError{"want one shell: bash, zsh or fish"}
				}
				switch args[0] {
				case "bash":
					return writeBashCompletion(out)
				case "zsh":
					return writeZshCompletion(out)
				case "fish":
					return writeFishCompletion(out)
				}
				return &usageError{fmt.Sprintf("unknown shell %q: want bash, zsh or fish", args[0])}
			}
		},
	})
}

// flagValues are the values completed after a flag, by flag name.
var flagValues = map[string][]string{
	"to":           formatNames,
	"from":         formatNames,
	"format":       {"table", "jsonl", "csv"},
	"compression":  {"snappy", "zstd", "gzip", "brotli", "lz4_raw", "lz4", "none"},
	"encoding":     {"plain", "delta_binary_packed", "delta_length_byte_array", "delta_byte_array", "byte_stream_split", "rle"},
	"int96-unit":   {"ms", "us", "ns"},
	"page-version": {"1", "2"},
}

// completionFlag is one flag of a command, as completions show it.
type completionFlag struct {
	name, usage string
	values      []string
	isBool      bool
}

type completionCommand struct {
	name, summary string
	flags         []completionFlag
}

// completionTable lists every command, with its flags, sorted by name.
func completionTable() []completionCommand {
	names := make([]string, 0, len(commands)+1)
	for n := range commands {
		names = append(names, n)
	}
	names = append(names, "help", "version")
	sort.Strings(names)
	var out []completionCommand
	for _, n := range names {
		cc := completionCommand{name: n}
		c, ok := commands[n]
		switch {
		case ok:
			cc.summary, _, _ = strings.Cut(c.summary, "\n")
			fs := flag.NewFlagSet(n, flag.ContinueOnError)
			registerCryptFlags(fs, n) // as newFlagSet does
			c.setup(fs)
			fs.VisitAll(func(f *flag.Flag) {
				usage, _, _ := strings.Cut(f.Usage, "\n")
				cf := completionFlag{name: f.Name, usage: usage, values: flagValues[f.Name]}
				if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
					cf.isBool = true
				}
				cc.flags = append(cc.flags, cf)
			})
		case n == "help":
			cc.summary = "print the list of commands, or the flags of one"
		default:
			cc.summary = "print the version"
		}
		out = append(out, cc)
	}
	return out
}

func writeBashCompletion(w io.Writer) error {
	var b strings.Builder
	tbl := completionTable()
	b.WriteString("# bash completion for arrowpq (arrowpq completion bash)\n_arrowpq() {\n")
	b.WriteString("  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" flags=\"\"\n")
	b.WriteString("  if [ \"$COMP_CWORD\" -eq 1 ]; then\n")
	var cmds []string
	for _, c := range tbl {
		cmds = append(cmds, c.name)
	}
	fmt.Fprintf(&b, "    COMPREPLY=( $(compgen -W %q -- \"$cur\") )\n    return\n  fi\n", strings.Join(cmds, " "))
	b.WriteString("  case \"${COMP_WORDS[1]}\" in\n")
	for _, c := range tbl {
		if c.name == "help" {
			fmt.Fprintf(&b, "    help) COMPREPLY=( $(compgen -W %q -- \"$cur\") ); return ;;\n", strings.Join(cmds, " "))
			continue
		}
		if c.name == "completion" {
			b.WriteString("    completion) COMPREPLY=( $(compgen -W \"bash zsh fish\" -- \"$cur\") ); return ;;\n")
			continue
		}
		var fl []string
		for _, f := range c.flags {
			fl = append(fl, "--"+f.name)
		}
		fmt.Fprintf(&b, "    %s) flags=%q ;;\n", c.name, strings.Join(fl, " "))
	}
	b.WriteString("  esac\n  case \"$prev\" in\n")
	var valueFlags []string
	for k := range flagValues {
		valueFlags = append(valueFlags, k)
	}
	sort.Strings(valueFlags)
	for _, k := range valueFlags {
		fmt.Fprintf(&b, "    --%s|-%s) COMPREPLY=( $(compgen -W %q -- \"$cur\") ); return ;;\n", k, k, strings.Join(flagValues[k], " "))
	}
	b.WriteString("  esac\n")
	b.WriteString("  if [[ \"$cur\" == -* ]]; then\n    COMPREPLY=( $(compgen -W \"$flags\" -- \"$cur\") )\n    return\n  fi\n")
	b.WriteString("  COMPREPLY=( $(compgen -f -- \"$cur\") )\n}\ncomplete -o filenames -F _arrowpq arrowpq\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// zshQuote quotes s for a zsh single-quoted string and escapes the
// characters _arguments and _describe treat specially.
func zshQuote(s string) string {
	r := strings.NewReplacer("'", "'\\''", "[", "\\[", "]", "\\]", ":", "\\:")
	return r.Replace(s)
}

func writeZshCompletion(w io.Writer) error {
	var b strings.Builder
	tbl := completionTable()
	b.WriteString("#compdef arrowpq\n# zsh completion for arrowpq (arrowpq completion zsh)\n_arrowpq() {\n  local -a cmds\n  cmds=(\n")
	for _, c := range tbl {
		fmt.Fprintf(&b, "    '%s:%s'\n", c.name, zshQuote(c.summary))
	}
	b.WriteString("  )\n  if (( CURRENT == 2 )); then\n    _describe 'command' cmds\n    return\n  fi\n  case $words[2] in\n")
	for _, c := range tbl {
		switch c.name {
		case "help":
			b.WriteString("    help) _describe 'command' cmds ;;\n")
			continue
		case "completion":
			b.WriteString("    completion) _values 'shell' bash zsh fish ;;\n")
			continue
		}
		fmt.Fprintf(&b, "    %s) _arguments", c.name)
		for _, f := range c.flags {
			spec := fmt.Sprintf("--%s[%s]", f.name, zshQuote(f.usage))
			if !f.isBool {
				if len(f.values) > 0 {
					spec += ":value:(" + strings.Join(f.values, " ") + ")"
				} else {
					spec += ":value:_files"
				}
			}
			fmt.Fprintf(&b, " \\\n        '*%s'", spec)
		}
		b.WriteString(" \\\n        '*:file:_files' ;;\n")
	}
	b.WriteString("  esac\n}\nif [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n  _arrowpq \"$@\"\nelse\n  compdef _arrowpq arrowpq\nfi\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

func writeFishCompletion(w io.Writer) error {
	var b strings.Builder
	tbl := completionTable()
	b.WriteString("# fish completion for arrowpq (arrowpq completion fish)\ncomplete -c arrowpq -f\n")
	var cmds []string
	for _, c := range tbl {
		cmds = append(cmds, c.name)
	}
	for _, c := range tbl {
		fmt.Fprintf(&b, "complete -c arrowpq -n '__fish_use_subcommand' -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	for _, c := range tbl {
		cond := fmt.Sprintf("'__fish_seen_subcommand_from %s'", c.name)
		switch c.name {
		case "help":
			fmt.Fprintf(&b, "complete -c arrowpq -n %s -a %s\n", cond, fishQuote(strings.Join(cmds, " ")))
			continue
		case "completion":
			fmt.Fprintf(&b, "complete -c arrowpq -n %s -a 'bash zsh fish'\n", cond)
			continue
		case "version":
			continue
		}
		fmt.Fprintf(&b, "complete -c arrowpq -n %s -F\n", cond)
		for _, f := range c.flags {
			fmt.Fprintf(&b, "complete -c arrowpq -n %s -l %s -d %s", cond, f.name, fishQuote(f.usage))
			if !f.isBool {
				b.WriteString(" -r")
				if len(f.values) > 0 {
					fmt.Fprintf(&b, " -a %s", fishQuote(strings.Join(f.values, " ")))
				}
			}
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
