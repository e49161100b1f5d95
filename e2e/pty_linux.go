package e2e

import (
	"bytes"
	"context"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Typed is one interactive session of the client in a pseudo-terminal. It is
// for what the client runs only where a person sits: the status lines, the
// file picker. Keys are typed once the prompt is drawn. The session is ended
// (its process group killed) once Done reports true, or after Within.
type Typed struct {
	Prompt string // the first prompt, given on the command line ("" for none)
	Keys   string // typed at the prompt
	Args   []string
	Env    []string
	Done   func() bool
	// Then are typed in turn after Keys. Each is typed once the screen drawn
	// since the previous typing shows its After (as DrawnWords). A step whose
	// After is never drawn is passed over once a later one's is. That is a
	// dialog the client shows only sometimes.
	Then []Step
	// Within is how long the session may run: 30 s when 0.
	Within time.Duration
}

// Step is keys typed once After is drawn and Pause has passed since. A dialog
// drops what is typed the moment it is drawn.
type Step struct {
	After, Keys string
	Pause       time.Duration
}

// Interactive runs one Typed session against the stand-in and returns what
// the client drew. The project's trust must already be accepted
// (TrustProject): a dialog would wait for a person.
func (w *World) Interactive(m *Model, s Typed) string {
	w.t.Helper()
	master, slave, err := openPTY()
	if err != nil {
		w.t.Fatalf("a pseudo-terminal: %v", err)
	}
	defer master.Close()
	args := append([]string{}, s.Args...)
	if s.Prompt != "" {
		args = append(args, s.Prompt)
	}
	env := append(append(append([]string{}, w.Env...), clientEnv(m)...), append([]string{"TERM=xterm-256color", "PWD=" + w.Project}, s.Env...)...)
	cmd, start := w.clientCmd(context.Background(), nil, w.Project, env, args)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	// Its own session, with the terminal as its controlling one. Its process
	// group is then its pid, helpers it started included.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	err = cmd.Start()
	slave.Close()
	if err != nil {
		w.t.Fatalf("claude: %v", err)
	}
	var screen lockedBuffer
	drawn := make(chan struct{})
	go func() { _, _ = io.Copy(&screen, master); close(drawn) }()
	typed := s.Keys == ""
	then, mark := s.Then, 0
	within := s.Within
	if within == 0 {
		within = 30 * time.Second
	}
	for end := time.Now().Add(within); time.Now().Before(end) && (s.Done == nil || !s.Done()); {
		time.Sleep(100 * time.Millisecond)
		drawn := screen.String()
		switch {
		case !typed && strings.Contains(drawn, "❯"):
			_, _ = master.Write([]byte(s.Keys))
			typed, mark = true, len(drawn)
		case typed:
			words := DrawnWords(drawn[mark:])
			for i, st := range then {
				if strings.Contains(words, st.After) {
					time.Sleep(st.Pause)
					_, _ = master.Write([]byte(st.Keys))
					then, mark = then[i+1:], len(screen.String())
					break
				}
			}
		}
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	master.Close()
	<-drawn
	w.oracle(start, m)
	return screen.String()
}

// ansi matches the terminal's control sequences in what the client drew.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]`)

// DrawnWords is what the client drew, control sequences and white space
// dropped. The client moves the cursor between words instead of printing
// spaces.
func DrawnWords(screen string) string {
	return strings.Join(strings.Fields(ansi.ReplaceAllString(screen, "")), "")
}

// openPTY opens a pseudo-terminal pair of 120 columns and 40 rows.
func openPTY() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(master.Fd())
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0)
	}
	if err == nil {
		slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	}
	if err == nil {
		err = unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120})
	}
	if err != nil {
		master.Close()
		if slave != nil {
			slave.Close()
		}
		return nil, nil, err
	}
	return master, slave, nil
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
