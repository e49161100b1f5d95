package clientproc

import "github.com/skillwire/skillwire/claude"

// StartEnv is what the environment the client running this process
// started with says of one variable: its value, whether it is set, and,
// in fixed words, why it could not be read ("" when it was, or when no
// client runs this process). The client reads its switches from that
// environment, which /proc/<pid>/environ keeps whatever it changes later;
// a settings env it applied since reaches the hook's own environment
// instead, so a caller reads both.
type StartEnv struct {
	Value   string
	Set     bool
	Problem string
}

// Getenv reads name from the environment the client started with.
func (c Client) Getenv(env claude.Env, name string) StartEnv {
	dir, problem := c.locate(env)
	if dir == "" {
		return StartEnv{Problem: problem}
	}
	environ, err := readBounded(dir+"/environ", maxEnviron)
	if err != nil {
		return StartEnv{Problem: problemEnviron}
	}
	v, ok := environVars(environ, name)[name]
	return StartEnv{Value: v, Set: ok}
}

// AddedInstructions is whether the client running this process reads the
// instruction files of the folders it added (claude.EnvAddedInstructions):
// on in the environment it started with, or in the hook's own, which
// carries the settings env the client applied to itself. An environment
// that cannot be read is taken as on: a file watched that the client does
// not read costs a line, one it reads unwatched is silence.
func (c Client) AddedInstructions(env claude.Env) bool {
	if v, _ := env.Getenv(claude.EnvAddedInstructions); claude.EnvOn(v) {
		return true
	}
	s := c.Getenv(env, claude.EnvAddedInstructions)
	return s.Problem != "" || claude.EnvOn(s.Value)
}
