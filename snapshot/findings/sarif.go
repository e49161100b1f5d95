package findings

import (
	"encoding/json"
	"errors"
)

// Located is a finding with the repository-relative path of its file.
type Located struct {
	Finding
	URI string `json:"uri"`
}

// ruleText says what each kind's SARIF rule reports.
var ruleText = map[string]string{
	InvisibleUnicode:   "Invisible Unicode: tag characters (decoded) or zero-width characters the model reads and a view hides.",
	Bidi:               "Bidirectional control characters that reorder what a view shows.",
	HTMLComment:        "A Markdown comment the model reads and a rendered view hides.",
	RemoteInstructions: "An instruction to fetch a URL at run time and follow what it says.",
	PipeToShell:        "A download piped to a shell or interpreter (curl | sh, bash <(curl), iwr | iex).",
	EncodedBlob:        "A base64 or hex run over 512 characters.",
	NewHost:            "A network host the previous version did not name.",
	ToolsWidened:       "allowed-tools grants tools the previous version did not.",
	NewExecutable:      "A file that runs, by its mode or its #! line, and did not before.",
	Unscanned:          "Part of a file or candidate was not scanned: past the bounds, or its content was not read.",
}

// AddSARIF adds the findings to a SARIF 2.1.0 log of one run: one rule a
// kind, its id the kind, and one result a finding at level warning.
// A finding is a fact for the reviewer, never a verdict.
func AddSARIF(log any, ls []Located) (any, error) {
	b, err := json.Marshal(log)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	runs, _ := m["runs"].([]any)
	if len(runs) != 1 {
		return nil, errors.New("findings: a SARIF log of one run is needed")
	}
	run, _ := runs[0].(map[string]any)
	tool, _ := run["tool"].(map[string]any)
	driver, _ := tool["driver"].(map[string]any)
	if driver == nil {
		return nil, errors.New("findings: the SARIF run has no driver")
	}
	rules, _ := driver["rules"].([]any)
	index := map[string]int{}
	for _, k := range Kinds {
		index[k] = len(rules)
		rules = append(rules, map[string]any{"id": k, "name": k, "shortDescription": map[string]any{"text": ruleText[k]},
			"defaultConfiguration": map[string]any{"level": "warning"}})
	}
	driver["rules"] = rules
	results, _ := run["results"].([]any)
	for _, l := range ls {
		loc := map[string]any{"artifactLocation": map[string]any{"uri": l.URI, "uriBaseId": "%SRCROOT%"}}
		if l.Line > 0 {
			loc["region"] = map[string]any{"startLine": l.Line}
		}
		results = append(results, map[string]any{"ruleId": l.Kind, "ruleIndex": index[l.Kind], "level": "warning",
			"message": map[string]any{"text": l.String()}, "locations": []any{map[string]any{"physicalLocation": loc}}})
	}
	if results == nil {
		results = []any{}
	}
	run["results"] = results
	return m, nil
}
