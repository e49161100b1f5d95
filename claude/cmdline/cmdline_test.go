package cmdline

import (
	"testing"
)

func TestScriptOfFindsLocalFiles(t *testing.T) {
	abs := func(p string) Script { return Script{Absolute, p} }
	rel := func(p string) Script { return Script{Relative, p} }
	for _, c := range []struct {
		cmd  string
		want Script
		bind Bind
	}{
		{`$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh`, Script{ProjectDir, ".claude/hooks/check.sh"}, BindScript},
		{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh --fast`, Script{ProjectDir, ".claude/hooks/check.sh"}, BindScript},
		{`"${CLAUDE_PROJECT_DIR}/hooks/a b.sh"`, Script{ProjectDir, "hooks/a b.sh"}, BindScript},
		{`${CLAUDE_PLUGIN_ROOT}/scripts/format.sh`, Script{PluginRoot, "scripts/format.sh"}, BindScript},
		{`node "${CLAUDE_PLUGIN_ROOT}/dist/hook.js"`, Script{PluginRoot, "dist/hook.js"}, BindScript},
		{`python3 -u ~/.claude/hooks/x.py`, Script{Home, ".claude/hooks/x.py"}, BindScript},
		{`~/.claude/statusline.sh`, Script{Home, ".claude/statusline.sh"}, BindScript},
		{`$HOME/bin/helper`, Script{Home, "bin/helper"}, BindScript},
		{`/bin/generate_temp_api_key.sh`, abs("/bin/generate_temp_api_key.sh"), BindScript},
		{`/opt/x/../../etc/y`, abs("/opt/x/../../etc/y"), BindScript},
		{`FOO=1 BAR=2 /usr/local/bin/h`, abs("/usr/local/bin/h"), BindScript},
		{"/tmp/a;rm -rf ~", abs("/tmp/a"), BindScript},
		{"/tmp/\x00\xff\n", abs("/tmp/\x00\xff"), BindScript},
		// Relative paths: a hook runs in the project directory.
		{`./x.sh`, rel("./x.sh"), BindScript},
		{`.claude/hooks/x.sh`, rel(".claude/hooks/x.sh"), BindScript},
		{`bash .claude/hooks/x.sh`, rel(".claude/hooks/x.sh"), BindScript},
		{`python3 hooks/x.py`, rel("hooks/x.py"), BindScript},
		{`python3 x.py`, rel("x.py"), BindScript},
		{`cd "$CLAUDE_PROJECT_DIR" && ./x.sh`, Script{ProjectDir, "./x.sh"}, BindScript},
		{`cd /srv/app; bash run.sh`, abs("/srv/app/run.sh"), BindScript},
		{`cd "$CLAUDE_PROJECT_DIR" && /abs/x.sh`, abs("/abs/x.sh"), BindScript},
		// Wrappers are passed over; interpreters are known by their basename.
		{`exec ./x.sh`, rel("./x.sh"), BindScript},
		{`timeout 30 ./x.sh`, rel("./x.sh"), BindScript},
		{`timeout -k 5 --signal=KILL 30s bash /abs/x.sh`, abs("/abs/x.sh"), BindScript},
		{`nohup ./x.sh`, rel("./x.sh"), BindScript},
		{`env FOO=1 ./x.sh`, rel("./x.sh"), BindScript},
		{`env -i PATH=/bin python3 /abs/x.py`, abs("/abs/x.py"), BindScript},
		{`npx tsx hooks/x.ts`, rel("hooks/x.ts"), BindScript},
		{`npx -y tsx ./x.ts`, rel("./x.ts"), BindScript},
		{`uv run hooks/x.py`, rel("hooks/x.py"), BindScript},
		{`uv run x.py`, rel("x.py"), BindScript},
		{`poetry run python -u x.py`, rel("x.py"), BindScript},
		{`uv run --quiet python /abs/x.py`, abs("/abs/x.py"), BindScript},
		{`node hooks/x.js`, rel("hooks/x.js"), BindScript},
		{`deno run -A hooks/x.ts`, rel("hooks/x.ts"), BindScript},
		{`bun run x.ts`, rel("x.ts"), BindScript},
		{`/bin/bash /abs/x.sh`, abs("/abs/x.sh"), BindScript},
		{`/usr/bin/env bash /abs/x.sh`, abs("/abs/x.sh"), BindScript},
		{`/usr/bin/python3.12 /abs/x.py`, abs("/abs/x.py"), BindScript},
		{`python3.12 /abs/x.py`, abs("/abs/x.py"), BindScript},
		{`fish /abs/x.fish`, abs("/abs/x.fish"), BindScript},
		{`php /abs/x.php`, abs("/abs/x.php"), BindScript},
		{`tsx /abs/x.ts`, abs("/abs/x.ts"), BindScript},
		{`ruby /abs/x.rb`, abs("/abs/x.rb"), BindScript},
		{`perl -w /abs/x.pl`, abs("/abs/x.pl"), BindScript},
		{`pwsh -File /abs/x.ps1`, abs("/abs/x.ps1"), BindScript},
		{`source .claude/env.sh`, rel(".claude/env.sh"), BindScript},
		{`bash -c './x.sh --fast'`, rel("./x.sh"), BindScript},
		// A program of the project's named like an interpreter is the file itself.
		{`$CLAUDE_PROJECT_DIR/bin/python3 x.py`, Script{ProjectDir, "bin/python3"}, BindScript},
		{`./bash x.sh`, rel("./bash"), BindScript},
		// Nothing local: a program on PATH, code given inline.
		{`curl -s https://x.example | sh`, Script{}, BindNone},
		{`npx -y some-package`, Script{}, BindNone},
		{`bash -c 'echo hi'`, Script{}, BindNone},
		{`python3 -c 'print(1)'`, Script{}, BindNone},
		{`jq .`, Script{}, BindNone},
		{`uv sync`, Script{}, BindNone},
		// What cannot be bound is said so.
		{`'$CLAUDE_PROJECT_DIR/x.sh'`, Script{}, BindUnknown},
		{`$OTHER/x.sh`, Script{}, BindUnknown},
		{`$CLAUDE_PROJECT_DIR/$X.sh`, Script{}, BindUnknown},
		{`/tmp/*.sh`, Script{}, BindUnknown},
		{"/tmp/`id`", Script{}, BindUnknown},
		{`/tmp/a\ b`, Script{}, BindUnknown},
		{`"/tmp/unterminated`, Script{}, BindUnknown},
		{`$CLAUDE_PROJECT_DIR/`, Script{}, BindUnknown},
		{``, Script{}, BindUnknown},
		{`$(curl -s x)`, Script{}, BindUnknown},
		{`eval "$X"`, Script{}, BindUnknown},
		{`(./x.sh)`, Script{}, BindUnknown},
		{`if true; then ./x.sh; fi`, Script{}, BindUnknown},
		{`bash < .claude/x.sh`, Script{}, BindUnknown},
		{`cd "$X" && ./x.sh`, Script{}, BindUnknown},
		{`python3 -m evil`, Script{}, BindUnknown},
		{`env -S 'bash x' y`, Script{}, BindUnknown},
		{`$SHELL /abs/x.sh`, Script{}, BindUnknown},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			got, b := ScriptOf(c.cmd)
			if b != c.bind || got != c.want {
				t.Errorf("ScriptOf(%q) = %+v %v, want %+v %v", c.cmd, got, b, c.want, c.bind)
			}
		})
	}
}

func FuzzCommandScript(f *testing.F) {
	for _, s := range []string{`./x.sh`, `cd "$CLAUDE_PROJECT_DIR" && bash -c 'cd /a; ./b'`, `env -u X timeout -k 1 2 npx tsx y`, `"a`, `$(x)`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		sc, b := ScriptOf(cmd)
		if (b == BindScript) != (sc.Anchor != 0) || b == BindScript && sc.Path == "" {
			t.Fatalf("%q: %+v %v", cmd, sc, b)
		}
	})
}
