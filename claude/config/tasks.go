package config

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
)

// A project's .claude/scheduled_tasks.json holds the durable tasks of
// Claude Code's scheduler. An interactive session sends each task's prompt
// to the model when its cron comes due, as if the person had typed it. A
// one-shot task missed while no session ran is sent at the start. Nobody
// is asked first (pinned by e2e/loop_test.go).

// TasksKey holds the tasks in a scheduled_tasks.json's canonical form.
const TasksKey = "scheduledTasks"

// taskNoise are the task fields the client writes itself, left out of the
// form. So a task that fires is no change of the file. Sorted.
//   - "createdByPid", "createdByProcStart", "createdBySessionId",
//     "createdInProject": which session created the task.
//   - "lastFiredAt": when it last fired, rewritten at every fire.
var taskNoise = []string{"createdByPid", "createdByProcStart", "createdBySessionId", "createdInProject", "lastFiredAt"}

// ScheduledTasks is scheduled_tasks.json, canonical: its "tasks" under
// TasksKey, each without taskNoise. The client reads no other key. A
// "tasks" that is not a list is kept as it is: the client then fires none.
func ScheduledTasks(data []byte, size int64) Extract {
	ex := WholeJSON(data, size)
	if ex.Canonical == nil {
		return ex
	}
	tasks := decodeCanonical(ex.Canonical)["tasks"]
	if list, ok := tasks.([]any); ok {
		for _, t := range list {
			if m, ok := t.(map[string]any); ok {
				for _, k := range taskNoise {
					delete(m, k)
				}
			}
		}
	}
	ex.Canonical = canonicalJSON(map[string]any{TasksKey: tasks})
	return ex
}

// taskFacts tells each task added, changed or removed, by its id. The
// client fires every task of an id, so each is told.
func taskFacts(old, new any) []Fact {
	o, n := tasksByID(old), tasksByID(new)
	var fs []Fact
	for _, id := range slices.Sorted(maps.Keys(n)) {
		for _, t := range n[id] {
			if slices.ContainsFunc(o[id], func(v any) bool { return cfgEqual(v, t) }) {
				continue
			}
			f := Fact{Kind: FactScheduledTaskNew, Name: id}
			if len(o[id]) > 0 {
				f.Kind = FactScheduledTaskChanged
			}
			describeTask(t, &f)
			fs = append(fs, f)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(o)) {
		if len(n[id]) == 0 {
			fs = append(fs, Fact{Kind: FactScheduledTaskRemoved, Name: id})
		}
	}
	return fs
}

// tasksByID groups the tasks of a form by their id as text. A task
// without a string id is one the client skips.
func tasksByID(v any) map[string][]any {
	out := map[string][]any{}
	list, _ := v.([]any)
	for _, t := range list {
		m, _ := t.(map[string]any)
		if id, ok := m["id"].(string); ok {
			out[id] = append(out[id], t)
		}
	}
	return out
}

// describeTask puts a task's prompt, cron and pacing in f.
func describeTask(t any, f *Fact) {
	m, _ := t.(map[string]any)
	f.Command, f.Value = cfgText(m["prompt"]), cfgText(m["cron"])
	f.Type = "once"
	if truthy(m["recurring"]) {
		f.Type = "recurring"
	}
}

// truthy is JavaScript's truth of a JSON value: the client keeps a task
// recurring when its "recurring" is truthy.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case json.Number:
		f, err := v.Float64()
		return err != nil || f != 0 && !math.IsNaN(f)
	}
	return true
}
