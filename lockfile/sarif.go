package lockfile

// SARIF 2.1.0 (OASIS), the subset code-scanning tools read. It has one run
// and the tool's driver with its rules. It has one result per finding, each
// located at a repository-relative URI.

// SARIFSchema is the OASIS schema of SARIF 2.1.0.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// InformationURI is skillwire's home, named in the SARIF driver.
const InformationURI = "https://github.com/skillwire/skillwire"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations,omitempty"`
	Results     []sarifResult     `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	Name                 string       `json:"name"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string       `json:"level"`
	Message sarifMessage `json:"message"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId"`
		} `json:"artifactLocation"`
	} `json:"physicalLocation"`
}

// SARIF renders r as a SARIF 2.1.0 log; version is skillwire's.
func (r *Report) SARIF(lockName, version string) any {
	log := newSARIF(version)
	run := &log.Runs[0]
	run.Invocations = []sarifInvocation{{ExecutionSuccessful: true}}
	for _, f := range r.findings(lockName) {
		res := sarifResult{RuleID: Rules[f.rule].ID, RuleIndex: f.rule, Level: "error", Message: sarifMessage{f.message}}
		var loc sarifLocation
		loc.PhysicalLocation.ArtifactLocation.URI = f.location
		loc.PhysicalLocation.ArtifactLocation.URIBaseID = "%SRCROOT%"
		res.Locations = []sarifLocation{loc}
		run.Results = append(run.Results, res)
	}
	return log
}

// SARIFFailure is the SARIF log of a verification that could not run. It has
// no results, and an unsuccessful invocation that says why.
func SARIFFailure(msg, version string) any {
	log := newSARIF(version)
	log.Runs[0].Invocations = []sarifInvocation{{
		Notifications: []sarifNotification{{Level: "error", Message: sarifMessage{msg}}},
	}}
	return log
}

func newSARIF(version string) *sarifLog {
	d := sarifDriver{Name: "skillwire", Version: version, InformationURI: InformationURI}
	for _, r := range Rules {
		sr := sarifRule{ID: r.ID, Name: r.Name, ShortDescription: sarifMessage{r.Text}}
		sr.DefaultConfiguration.Level = "error"
		d.Rules = append(d.Rules, sr)
	}
	return &sarifLog{Schema: SARIFSchema, Version: "2.1.0",
		Runs: []sarifRun{{Tool: sarifTool{Driver: d}, Results: []sarifResult{}}}}
}
