package claude

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"time"
)

// ignoreTimeout bounds the git process a discovery asks.
const ignoreTimeout = 2 * time.Second

// ignorer asks one `git check-ignore --stdin` in the work tree at top which
// folders git ignores, as Claude Code asks it (a tracked file is never
// ignored), question after question: one process for a discovery, not one
// per question (a git start costs ~15 ms on a large checkout). No answer
// (no git, a broken repository, the deadline) ignores nothing: the client
// then loads them all. The repository's fsmonitor is never started:
// skillwire runs no command of the repository's.
type ignorer struct {
	cancel context.CancelFunc
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	broken bool
}

func startIgnorer(top string) *ignorer {
	ctx, cancel := context.WithTimeout(context.Background(), ignoreTimeout)
	g := &ignorer{cancel: cancel, broken: true}
	cmd := exec.CommandContext(ctx, "git", "-C", top, "-c", "core.fsmonitor=false",
		"check-ignore", "--stdin", "-z", "--verbose", "--non-matching")
	// Answers stream only when git flushes after each question, which a
	// user's GIT_FLUSH=0 would stop.
	cmd.Env = append(os.Environ(), "GIT_FLUSH=1")
	in, err1 := cmd.StdinPipe()
	out, err2 := cmd.StdoutPipe()
	if err1 != nil || err2 != nil || cmd.Start() != nil {
		return g
	}
	g.cmd, g.in, g.out, g.broken = cmd, in, bufio.NewReader(out), false
	return g
}

// ask is the set of dirs git ignores. With --non-matching every question
// has one answer, in order: source, line, pattern, path, each NUL-ended;
// a path is ignored when a pattern matched and it is not a negation.
func (g *ignorer) ask(dirs []string) map[string]bool {
	ignored := map[string]bool{}
	if g == nil || g.broken || len(dirs) == 0 {
		return ignored
	}
	// Written beside the reading: git answers while it reads, and a batch
	// larger than the pipes would block both.
	go func() {
		var b bytes.Buffer
		for _, d := range dirs {
			b.WriteString(d + "/\x00")
		}
		g.in.Write(b.Bytes())
	}()
	for _, d := range dirs {
		var f [4][]byte
		for i := range f {
			v, err := g.out.ReadBytes(0)
			if err != nil {
				g.broken = true
				return ignored
			}
			f[i] = v[:len(v)-1]
		}
		if string(f[3]) != d+"/" {
			g.broken = true // not the answer to this question: trust no more
			return ignored
		}
		if len(f[0]) > 0 && !bytes.HasPrefix(f[2], []byte("!")) {
			ignored[d] = true
		}
	}
	return ignored
}

// close ends the process: every answer read, it exits at the end of its
// input; one that broke off may have answers left unread, so it is killed.
func (g *ignorer) close() {
	if g.cmd != nil {
		if g.broken {
			g.cmd.Process.Kill()
		}
		g.in.Close()
		g.cmd.Wait()
	}
	g.cancel()
}
