package clientproc

import "github.com/skillwire/skillwire/claude"

// StartEnv is what the client's start environment says of one variable.
// That is the environment the client running this process started with.
// It holds the value and whether it is set. Problem says in fixed words
// why it could not be read. It is "" when it was, or when no client runs
// this process. The client reads its switches from that environment.
// /proc/<pid>/environ keeps it, whatever the client changes later. A
// settings env it applied since reaches the hook's own environment
// instead. So a caller reads both.
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

// AddedInstructions is Added(env).Instructions(env). It is for a caller
// that reads nothing else of the client.
func (c Client) AddedInstructions(env claude.Env) bool { return c.Added(env).Instructions(env) }
