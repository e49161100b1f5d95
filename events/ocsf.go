// Package events writes what skillwire decides and observes as OCSF events
// to <state>/events.ndjson, one JSON object a line. It ships that file over
// OTLP/HTTP from a persisted cursor, at least once.
//
// The OCSF classes are pinned against the published schema at tag 1.8.0
// of github.com/ocsf/ocsf-schema (see testdata/ocsf-1.8.0.json).
//
//   - File System Activity (class_uid 1001, category System Activity). One
//     file of a candidate was created, updated, deleted, renamed or
//     re-moded. Schema: events/system/file_activity.json.
//   - Detection Finding (class_uid 2004, category Findings). A candidate
//     was observed new, changed, anomalous or partial. Or: a gate ask or
//     deny, a verdict, an auto-accept, a halt, hooks switched off by a
//     project. Schema: events/findings/detection_finding.json.
//   - File Remediation Activity (class_uid 7002, category Remediation),
//     activity Restore: a restore. Schema:
//     events/remediation/file_remediation_activity.json.
//
// skillwire's own fields live under unmapped.skillwire.
package events

import (
	"time"
)

// Version is the OCSF schema version every event declares in
// metadata.version.
const Version = "1.8.0"

// ProductVersion is skillwire's version as metadata.product.version says
// it. The command sets it from its build version.
var ProductVersion = "0.1.0-dev"

// OCSF class and category identifiers. class_uid is category_uid*1000 +
// the class's own uid. type_uid is class_uid*100 + activity_id.
const (
	CategorySystem      = 1
	CategoryFindings    = 2
	CategoryRemediation = 7

	ClassFileActivity        = 1001
	ClassDetectionFinding    = 2004
	ClassFileRemediation     = 7002
	classNameFileActivity    = "File System Activity"
	classNameDetection       = "Detection Finding"
	classNameFileRemediation = "File Remediation Activity"
)

// File System Activity activity_id values used here.
const (
	ActivityCreate        = 1
	ActivityUpdate        = 3
	ActivityDelete        = 4
	ActivityRename        = 5
	ActivitySetAttributes = 6
)

// Detection Finding activity_id: a new finding.
const ActivityFindingCreate = 1

// File Remediation Activity activity_id: Restore.
const ActivityRestore = 3

// Severity is OCSF severity_id.
type Severity int

const (
	SeverityInformational Severity = 1
	SeverityLow           Severity = 2
	SeverityMedium        Severity = 3
	SeverityHigh          Severity = 4
	SeverityCritical      Severity = 5
)

var severityNames = map[Severity]string{
	SeverityInformational: "Informational",
	SeverityLow:           "Low",
	SeverityMedium:        "Medium",
	SeverityHigh:          "High",
	SeverityCritical:      "Critical",
}

// Event is one OCSF event. Field names and nesting are the schema's. The
// JSON encoding is the contract, pinned by the golden files.
type Event struct {
	ActivityID   int      `json:"activity_id"`
	ActivityName string   `json:"activity_name"`
	CategoryUID  int      `json:"category_uid"`
	CategoryName string   `json:"category_name"`
	ClassUID     int      `json:"class_uid"`
	ClassName    string   `json:"class_name"`
	TypeUID      int      `json:"type_uid"`
	TypeName     string   `json:"type_name"`
	SeverityID   Severity `json:"severity_id"`
	Severity     string   `json:"severity"`
	// Time is milliseconds since the Unix epoch (OCSF timestamp_t).
	Time     int64    `json:"time"`
	Message  string   `json:"message,omitempty"`
	StatusID int      `json:"status_id,omitempty"`
	Status   string   `json:"status,omitempty"`
	Metadata Metadata `json:"metadata"`
	Device   Device   `json:"device"`
	Actor    Actor    `json:"actor"`

	// File System Activity and File Remediation Activity.
	File       *File  `json:"file,omitempty"`
	FileResult *File  `json:"file_result,omitempty"`
	CommandUID string `json:"command_uid,omitempty"`

	// Detection Finding.
	FindingInfo *FindingInfo `json:"finding_info,omitempty"`
	Resources   []Resource   `json:"resources,omitempty"`
	IsAlert     *bool        `json:"is_alert,omitempty"`
	// The security_control profile (gate answers).
	ActionID      int    `json:"action_id,omitempty"`
	Action        string `json:"action,omitempty"`
	DispositionID int    `json:"disposition_id,omitempty"`
	Disposition   string `json:"disposition,omitempty"`

	Unmapped Unmapped `json:"unmapped"`
}

// Metadata is OCSF metadata.
type Metadata struct {
	// UID is the event's unique id (a UUIDv7). A pipeline de-duplicates on
	// it, since shipping is at least once.
	UID            string   `json:"uid"`
	Version        string   `json:"version"`
	Product        Product  `json:"product"`
	Profiles       []string `json:"profiles,omitempty"`
	LogName        string   `json:"log_name"`
	CorrelationUID string   `json:"correlation_uid,omitempty"` // Claude Code's prompt.id
}

// Product is OCSF product.
type Product struct {
	Name       string `json:"name"`
	VendorName string `json:"vendor_name"`
	Version    string `json:"version"`
}

// Device is OCSF device. type_id is required. skillwire does not know
// whether it runs on a laptop or a server, so it says Unknown (0).
type Device struct {
	Hostname string `json:"hostname"`
	TypeID   int    `json:"type_id"`
	Type     string `json:"type"`
}

// Actor is OCSF actor: the user skillwire runs as. It holds the Claude
// Code session when a hook knew it.
type Actor struct {
	User    User     `json:"user"`
	AppName string   `json:"app_name,omitempty"`
	Session *Session `json:"session,omitempty"`
}

// User is OCSF user.
type User struct {
	Name   string `json:"name,omitempty"`
	UID    string `json:"uid,omitempty"`
	TypeID int    `json:"type_id"`
	Type   string `json:"type"`
}

// Session is OCSF session. UID is Claude Code's session.id.
type Session struct {
	UID string `json:"uid"`
}

// File is OCSF file.
type File struct {
	Name   string        `json:"name"`
	Path   string        `json:"path"`
	TypeID int           `json:"type_id"`
	Type   string        `json:"type"`
	Size   *int64        `json:"size,omitempty"`
	Hashes []Fingerprint `json:"hashes,omitempty"`
}

// Fingerprint is OCSF fingerprint. BLAKE3 has no algorithm_id of its own
// in OCSF 1.8.0. So it is Other (99), named in algorithm.
type Fingerprint struct {
	AlgorithmID int    `json:"algorithm_id"`
	Algorithm   string `json:"algorithm"`
	Value       string `json:"value"`
}

// FindingInfo is OCSF finding_info.
type FindingInfo struct {
	// UID names the finding, not the event. The same finding reported
	// twice has one uid, as a candidate still BLOCKed at the next session.
	UID      string   `json:"uid"`
	Title    string   `json:"title"`
	Desc     string   `json:"desc,omitempty"`
	Types    []string `json:"types"`
	Analytic Analytic `json:"analytic"`
}

// Analytic is OCSF analytic: which of skillwire's rules found it.
type Analytic struct {
	Name   string `json:"name"`
	TypeID int    `json:"type_id"`
	Type   string `json:"type"`
}

// Resource is OCSF resource_details: the candidate a finding is about.
type Resource struct {
	UID    string   `json:"uid"`
	Name   string   `json:"name,omitempty"`
	Type   string   `json:"type"`
	RoleID int      `json:"role_id"`
	Role   string   `json:"role"`
	Labels []string `json:"labels,omitempty"`
}

// Unmapped holds what OCSF has no attribute for.
type Unmapped struct {
	Skillwire Fields `json:"skillwire"`
}

// Fields are skillwire's own facts about an event.
type Fields struct {
	// Event names the kind: file_change, candidate, gate_answer, verdict,
	// auto_accept, halt, restore, hooks_disabled, install_record, mod.
	Event     string     `json:"event"`
	Via       string     `json:"via,omitempty"`
	Candidate *Candidate `json:"candidate,omitempty"`
	State     string     `json:"state,omitempty"`
	Status    string     `json:"status,omitempty"`
	Verdict   string     `json:"verdict,omitempty"`
	Reviewer  string     `json:"reviewer,omitempty"`
	Digest    string     `json:"digest,omitempty"`
	// PreviousDigest is the digest (tree or file) the change is from.
	PreviousDigest string   `json:"previous_digest,omitempty"`
	Change         string   `json:"change,omitempty"`
	Class          string   `json:"class,omitempty"`
	Why            string   `json:"why,omitempty"`
	Anomalies      []string `json:"anomalies,omitempty"`
	Unexpected     int      `json:"unexpected,omitempty"`
	// Findings are a candidate's content findings, counted by kind.
	Findings   []FindingCount `json:"findings,omitempty"`
	Hook       string         `json:"hook,omitempty"`
	Decision   string         `json:"decision,omitempty"`
	Policy     string         `json:"policy,omitempty"`
	Tool       string         `json:"tool,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	Source     string         `json:"source,omitempty"`
	Quarantine string         `json:"quarantine,omitempty"`
	Setting    string         `json:"setting,omitempty"`
	// Check is the install-record check a plugin's folder failed.
	Check string `json:"check,omitempty"`
	// Facts are a mod's hooks modules as told. ModPolicy is the client's
	// mod policy in force; Held, that it keeps the mod from loading.
	Facts     []string `json:"facts,omitempty"`
	ModPolicy string   `json:"mod_policy,omitempty"`
	Held      bool     `json:"held,omitempty"`
	// PathHex is the exact bytes of a path that is not valid UTF-8. JSON
	// cannot hold them, so file.path carries U+FFFD in their place.
	PathHex string `json:"path_hex,omitempty"`
	// Entry is a bound file's path in its candidate (scripts/<hash>). It is
	// set when file.path is where the file lies (Reconciliation.At).
	Entry string `json:"entry,omitempty"`
	// ClaudeCode is what a hook knew of the Claude Code session.
	ClaudeCode *ClaudeCode `json:"claude_code,omitempty"`
}

// Candidate is the candidate an event is about, as skillwire names it.
type Candidate struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Scope string `json:"scope"`
	Name  string `json:"name,omitempty"`
	Path  string `json:"path,omitempty"`
}

// ClaudeCode carries Claude Code's own telemetry keys: session.id and
// prompt.id. So a backend joins these events with the client's.
type ClaudeCode struct {
	SessionID string `json:"session_id,omitempty"`
	PromptID  string `json:"prompt_id,omitempty"`
}

// Origin is what the caller knows of where and when an event happened.
// Host, user and event id are filled in by Append (see Stamp).
type Origin struct {
	Time      time.Time // zero: now
	SessionID string    // Claude Code's session.id, when a hook knew it
	PromptID  string    // Claude Code's prompt.id, when a hook knew it
	// Via says how skillwire learnt it: "session-start", "daemon", "gate",
	// "record", "review", "restore", "cli".
	Via string
}
