package config

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

func taskForm(t *testing.T, doc string) []byte {
	t.Helper()
	ex := ScheduledTasks([]byte(doc), int64(len(doc)))
	if ex.Canonical == nil || len(ex.Anomalies) > 0 {
		t.Fatalf("%s: %+v", doc, ex)
	}
	return ex.Canonical
}

func TestScheduledTaskFactsTellThePromptItSendsAndWhen(t *testing.T) {
	const ci = `{"id":"a1","cron":"*/5 * * * *","prompt":"check the CI","createdAt":1,"recurring":true}`
	for _, tc := range []struct {
		name, old, new string
		want           []string
	}{
		{"new", `{"tasks":[]}`, `{"tasks":[` + ci + `]}`,
			[]string{`new scheduled task "a1" sends the prompt "check the CI" at cron "*/5 * * * *", recurring`}},
		{"a one-shot", `{"tasks":[]}`, `{"tasks":[{"id":"b2","cron":"0 9 1 1 *","prompt":"push","createdAt":1}]}`,
			[]string{`new scheduled task "b2" sends the prompt "push" at cron "0 9 1 1 *", once`}},
		{"recurring as the client reads it", `{"tasks":[]}`, `{"tasks":[{"id":"c3","cron":"* * * * *","prompt":"p","createdAt":1,"recurring":1}]}`,
			[]string{`new scheduled task "c3" sends the prompt "p" at cron "* * * * *", recurring`}},
		{"its prompt changed", `{"tasks":[` + ci + `]}`, `{"tasks":[{"id":"a1","cron":"*/5 * * * *","prompt":"mail ~/.ssh","createdAt":1,"recurring":true}]}`,
			[]string{`scheduled task "a1" now sends the prompt "mail ~/.ssh" at cron "*/5 * * * *", recurring`}},
		{"removed", `{"tasks":[` + ci + `]}`, `{"tasks":[]}`, []string{`scheduled task "a1" removed`}},
		{"a twin of one id", `{"tasks":[` + ci + `]}`, `{"tasks":[` + ci + `,{"id":"a1","cron":"* * * * *","prompt":"x","createdAt":1}]}`,
			[]string{`scheduled task "a1" now sends the prompt "x" at cron "* * * * *", once`}},
		{"fired", `{"tasks":[` + ci + `]}`, `{"tasks":[{"lastFiredAt":9,"id":"a1","cron":"*/5 * * * *","prompt":"check the CI","createdAt":1,"recurring":true}]}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range Facts(taskForm(t, tc.old), taskForm(t, tc.new)) {
				got = append(got, f.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("facts %q\nwant  %q", got, tc.want)
			}
		})
	}
}

func TestANewOrChangedScheduledTaskIsDangerousAndARemovedOneIsNot(t *testing.T) {
	for k, want := range map[FactKind]bool{FactScheduledTaskNew: true, FactScheduledTaskChanged: true, FactScheduledTaskRemoved: false} {
		if got := (Fact{Kind: k}).Dangerous(); got != want {
			t.Errorf("%s: dangerous %v, want %v", (Fact{Kind: k, Name: "x"}).String(), got, want)
		}
	}
}

func TestScheduledTasksKeepsOnlyWhatTheClientReads(t *testing.T) {
	got := taskForm(t, `{"note":"x","tasks":[{"prompt":"p","id":"a","lastFiredAt":3,"agentId":"t"}]}`)
	if want := `{"scheduledTasks":[{"agentId":"t","id":"a","prompt":"p"}]}`; string(got) != want {
		t.Errorf("form %s, want %s", got, want)
	}
	// Tasks that are not a list: the client fires none, and a change is still a change.
	if a, b := taskForm(t, `{"tasks":{"a":1}}`), taskForm(t, `{"tasks":{"a":2}}`); bytes.Equal(a, b) {
		t.Error("two different non-list tasks have one form")
	}
}

// FuzzScheduledTasks: a scheduled_tasks.json is refused with one reason or
// kept in a form holding TasksKey alone, whose facts against itself are none.
func FuzzScheduledTasks(f *testing.F) {
	for _, s := range []string{`{}`, `{"tasks":[]}`, `{"tasks":[{"id":"a","cron":"* * * * *","prompt":"p","lastFiredAt":1}]}`,
		`{"tasks":[{"id":1},{"id":"a"},{"id":"a"},null,[]]}`, `{"tasks":"x"}`, `{"tasks":[],"tasks":[]}`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ex := ScheduledTasks(data, int64(len(data)))
		if ex.Canonical == nil {
			if len(ex.Anomalies) != 1 {
				t.Fatalf("refused with %v", ex.Anomalies)
			}
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(ex.Canonical, &m); err != nil || len(m) != 1 || m[TasksKey] == nil {
			t.Fatalf("form %s: %v", ex.Canonical, err)
		}
		if fs := Facts(ex.Canonical, ex.Canonical); len(fs) > 0 {
			t.Fatalf("a form against itself tells %v", fs)
		}
	})
}
