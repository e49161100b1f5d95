package events

import (
	"encoding/hex"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillwire/skillwire/snapshot"
)

// Reconciliation is what skillwire concluded about one file change. Its
// fields are the reconcile package's Class and Mismatch, as strings.
type Reconciliation struct {
	Class string // "expected", "announced-by-project", "unexpected"; "" when not reconciled
	Why   string // the mismatch of an unexpected change
	// SHA256 is of the file's new content, zero when not known. SIEMs index
	// SHA-256, so a changed file should carry it.
	SHA256 [32]byte
	// At is the absolute path of a file the candidate binds from outside
	// its path. An example is a script its settings run
	// (claude.Root.BoundPaths). Then file.path is At. skillwire.entry is
	// the change's path in the candidate (scripts/<hash>). At is "" for
	// every other file.
	At string
}

// FileChange is File System Activity (1001) for one path of a candidate.
// Added is Create, Modified Update, Removed Delete. ModeChanged is Set
// Attributes. file.path is the candidate's path joined with the change's.
// For a bound file it is where the file lies (Reconciliation.At). An
// unexpected change is Medium. One only the project's own log explains is
// Low. The rest are Informational.
func FileChange(o Origin, c Candidate, ch snapshot.Change, r Reconciliation) Event {
	activity := map[snapshot.ChangeType]int{
		snapshot.Added:       ActivityCreate,
		snapshot.Modified:    ActivityUpdate,
		snapshot.Removed:     ActivityDelete,
		snapshot.ModeChanged: ActivitySetAttributes,
	}[ch.Type]
	e := base(o, ClassFileActivity, activity, severityOfClass(r.Class))
	entry := ch.New
	if entry == nil {
		entry = ch.Old
	}
	full, bound := joinPath(c.Path, ch.Path), ""
	if r.At != "" {
		full, bound = r.At, string(ch.Path)
	}
	f := fileOf(full, entry)
	if ch.Type != snapshot.Removed && entry != nil && entry.Kind == snapshot.File {
		if r.SHA256 != ([32]byte{}) {
			f.Hashes = append(f.Hashes, Fingerprint{AlgorithmID: 3, Algorithm: "SHA-256", Value: hex.EncodeToString(r.SHA256[:])})
		}
	}
	e.File = f
	e.Message = "file " + strings.ToLower(activityNames[ClassFileActivity][activity]) + "d in " + c.Kind + " " + describe(c)
	if activity == ActivitySetAttributes {
		e.Message = "file mode changed in " + c.Kind + " " + describe(c)
	}
	e.Unmapped.Skillwire = Fields{Event: "file_change", Via: o.Via, Candidate: ref(c), Change: ch.Type.String(), Class: r.Class, Why: r.Why, PathHex: pathHex(full), Entry: bound}
	if ch.Old != nil && ch.Old.Kind == snapshot.File && ch.Type != snapshot.Removed {
		e.Unmapped.Skillwire.PreviousDigest = ch.Old.Hash.String()
	}
	return e
}

// CandidateRenamed is File System Activity Rename (1001, activity 5) of a
// candidate's root. file is where it was, file_result where it is.
func CandidateRenamed(o Origin, c Candidate, oldPath string) Event {
	e := base(o, ClassFileActivity, ActivityRename, SeverityLow)
	e.File = &File{Name: path.Base(oldPath), Path: oldPath, TypeID: 2, Type: "Folder"}
	e.FileResult = &File{Name: path.Base(c.Path), Path: c.Path, TypeID: 2, Type: "Folder"}
	e.Message = c.Kind + " " + describe(c) + " renamed"
	e.Unmapped.Skillwire = Fields{Event: "file_change", Via: o.Via, Candidate: ref(c), Change: "renamed"}
	return e
}

// Observation is a candidate as delivered to a session or seen by the
// daemon.
type Observation struct {
	State      string   // "new", "changed", "removed", "partial" (unchanged is no event)
	Digest     string   // "blake3:…"; "" when partial or removed
	Previous   string   // the digest it changed from
	Status     string   // the store's status: pending, halted, unvetted, vetted…
	Verdict    string   // the verdict in force, "" when none
	Anomalies  []string // the anomaly reasons observed
	Unexpected int      // file changes no log explains
	// Findings are the content findings of a new or changed candidate,
	// counted by kind (snapshot/findings kinds), in that order.
	Findings []FindingCount
}

// FindingCount is how many content findings of one kind a candidate holds.
type FindingCount struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// RaisingFindings are the finding kinds that make a candidate's event
// Medium at least: code fetched and run, or text a person cannot see.
var RaisingFindings = []string{"invisible-unicode", "bidi", "pipe-to-shell"}

// raises reports whether fs hold a kind of RaisingFindings.
func raises(fs []FindingCount) bool {
	for _, f := range fs {
		if f.Count > 0 && slices.Contains(RaisingFindings, f.Kind) {
			return true
		}
	}
	return false
}

// CandidateObserved is a Detection Finding (2004). It is High under a
// BLOCK. It is Medium when SUSPECT, anomalous, partial, changed
// unexpectedly or holding a finding of RaisingFindings. It is Low when
// changed or removed, Informational when new. Its content findings are
// counted by kind in skillwire.findings and its title.
func CandidateObserved(o Origin, c Candidate, obs Observation) Event {
	sev := SeverityInformational
	switch {
	case obs.Verdict == "BLOCK":
		sev = SeverityHigh
	case obs.Verdict == "SUSPECT" || len(obs.Anomalies) > 0 || obs.State == "partial" || obs.Unexpected > 0 || raises(obs.Findings):
		sev = SeverityMedium
	case obs.State == "changed" || obs.State == "removed":
		sev = SeverityLow
	}
	title := c.Kind + " " + obs.State
	if obs.Unexpected > 0 {
		title += ", changed without announcement"
	}
	if len(obs.Anomalies) > 0 {
		title += ", anomalous"
	}
	if len(obs.Findings) > 0 {
		title += ", with content findings"
	}
	if obs.Verdict != "" {
		title += ", under " + obs.Verdict
	}
	key := obs.Digest
	if key == "" {
		key = obs.State
	}
	e := finding(o, c, sev, "candidate", key, title)
	e.Message = c.Kind + " " + describe(c) + ": " + strings.TrimPrefix(title, c.Kind+" ")
	e.Unmapped.Skillwire = Fields{Event: "candidate", Via: o.Via, Candidate: ref(c), State: obs.State, Digest: obs.Digest,
		PreviousDigest: obs.Previous, Status: obs.Status, Verdict: obs.Verdict, Anomalies: obs.Anomalies, Unexpected: obs.Unexpected, Findings: obs.Findings}
	return e
}

// Answer is one answer of the gate.
type Answer struct {
	Hook     string // "pre-tool-use", "prompt-expansion", "config-change", "instructions-loaded"
	Decision string // "deny", "ask", "allow"
	Policy   string // "audit", "balanced", "strict"
	Tool     string // the tool or command the client was about to use, when one
	Reason   string // the gate's one-line reason
	Digest   string // the candidate's digest as the gate saw it
}

// GateAnswer is a Detection Finding (2004) with the security_control
// profile. A deny is High (action Denied, disposition Blocked). An ask is
// Medium (action and disposition Other: "Ask"). An allow is Informational.
func GateAnswer(o Origin, c Candidate, a Answer) Event {
	sev, actionID, action, dispID, disp := SeverityInformational, 1, "Allowed", 1, "Allowed"
	switch a.Decision {
	case "deny":
		sev, actionID, action, dispID, disp = SeverityHigh, 2, "Denied", 2, "Blocked"
	case "ask":
		sev, actionID, action, dispID, disp = SeverityMedium, 99, "Ask", 99, "Ask"
	}
	e := finding(o, c, sev, "gate", a.Hook+":"+a.Decision+":"+a.Digest, "gate "+a.Decision+": "+c.Kind+" "+a.Hook)
	e.Metadata.Profiles = []string{"host", "security_control"}
	e.ActionID, e.Action, e.DispositionID, e.Disposition = actionID, action, dispID, disp
	e.Message = "gate " + a.Decision + " (" + a.Hook + ") for " + c.Kind + " " + describe(c)
	e.Unmapped.Skillwire = Fields{Event: "gate_answer", Via: o.Via, Candidate: ref(c), Hook: a.Hook, Decision: a.Decision,
		Policy: a.Policy, Tool: a.Tool, Reason: a.Reason, Digest: a.Digest}
	return e
}

// Verdict is a Detection Finding (2004) for a verdict recorded. BLOCK is
// High, SUSPECT Medium, SAFE-TO-PROPOSE Informational.
func Verdict(o Origin, c Candidate, verdict, digest, reviewer string) Event {
	sev := SeverityInformational
	switch verdict {
	case "BLOCK":
		sev = SeverityHigh
	case "SUSPECT":
		sev = SeverityMedium
	}
	e := finding(o, c, sev, "verdict", verdict+":"+digest, "verdict "+verdict+" recorded on "+c.Kind)
	e.Message = "verdict " + verdict + " recorded on " + c.Kind + " " + describe(c)
	e.Unmapped.Skillwire = Fields{Event: "verdict", Via: o.Via, Candidate: ref(c), Verdict: verdict, Digest: digest, Reviewer: reviewer}
	return e
}

// AutoAccept is a Detection Finding (2004), Low. A trusted audit-log
// source announced a change, accepted within bounds without a person.
func AutoAccept(o Origin, c Candidate, from, to, source string) Event {
	e := finding(o, c, SeverityLow, "auto-accept", to, c.Kind+" change auto-accepted")
	e.Message = c.Kind + " " + describe(c) + ": change auto-accepted (announced by " + source + ")"
	e.Unmapped.Skillwire = Fields{Event: "auto_accept", Via: o.Via, Candidate: ref(c), PreviousDigest: from, Digest: to, Source: source}
	return e
}

// Halt is a Detection Finding (2004), High. skillwire stopped trusting a
// candidate until a person decides.
func Halt(o Origin, c Candidate, digest, reason string) Event {
	e := finding(o, c, SeverityHigh, "halt", digest, c.Kind+" halted")
	e.Message = c.Kind + " " + describe(c) + " halted: " + reason
	e.Unmapped.Skillwire = Fields{Event: "halt", Via: o.Via, Candidate: ref(c), Digest: digest, Reason: reason}
	return e
}

// HooksDisabled is a Detection Finding (2004), Medium. A settings
// candidate switches Claude Code's hooks off, and with them the gate.
// setting names the key, such as "disableAllHooks".
func HooksDisabled(o Origin, c Candidate, setting string) Event {
	e := finding(o, c, SeverityMedium, "hooks-disabled", setting, "hooks switched off by "+c.Scope+" settings")
	e.Message = c.Scope + " settings " + describe(c) + " switch hooks off (" + setting + ")"
	e.Unmapped.Skillwire = Fields{Event: "hooks_disabled", Via: o.Via, Candidate: ref(c), Setting: setting}
	return e
}

// InstallRecord is a Detection Finding (2004). Plugin c's folder is not
// what Claude Code recorded installing (installed_plugins.json). check
// names the check that failed, in config's Record… words. told is the
// finding as the session was told it, escaped. A copyHash its folder no
// longer hashes to is High: the bytes changed after the client installed
// them. Any other disagreement is Medium.
func InstallRecord(o Origin, c Candidate, check, told string) Event {
	sev := SeverityMedium
	if check == "copyHash" {
		sev = SeverityHigh
	}
	e := finding(o, c, sev, "install-record", check+":"+c.Name+":"+c.Path, c.Kind+" differs from its install record ("+check+")")
	e.Message = told
	e.Unmapped.Skillwire = Fields{Event: "install_record", Via: o.Via, Candidate: ref(c), Check: check, Reason: told}
	return e
}

// Mod is a Detection Finding (2004) for plugin c whose hooks file lists
// modules (issue 30). A mod runs in-process code above every hook of
// settings but managed ones, skillwire's included. facts are what it
// lists, as told (escaped). policy is the client's mod policy in force. It
// is High, and Low only when held: the policy keeps it from loading.
func Mod(o Origin, c Candidate, digest string, facts []string, policy string, held bool) Event {
	sev := SeverityHigh
	if held {
		sev = SeverityLow
	}
	key := digest
	if key == "" {
		key = strings.Join(facts, ";")
	}
	e := finding(o, c, sev, "mod", key, c.Kind+" is a mod: in-process code above skillwire's hooks")
	e.Message = c.Kind + " " + describe(c) + ": " + strings.Join(facts, "; ")
	e.Unmapped.Skillwire = Fields{Event: "mod", Via: o.Via, Candidate: ref(c), Digest: digest, Facts: facts, ModPolicy: policy, Held: held}
	return e
}

// Restore is File Remediation Activity (7002), activity Restore. The
// candidate's tree is put back at digest to. The displaced tree (from) is
// kept in quarantine. A failed restore has status Failure and err's text.
func Restore(o Origin, c Candidate, from, to, quarantine string, err error) Event {
	e := base(o, ClassFileRemediation, ActivityRestore, SeverityInformational)
	e.File = &File{Name: path.Base(c.Path), Path: c.Path, TypeID: 2, Type: "Folder"}
	e.StatusID, e.Status = 1, "Success"
	e.Message = c.Kind + " " + describe(c) + " restored"
	reason := ""
	if err != nil {
		e.StatusID, e.Status, e.SeverityID = 2, "Failure", SeverityMedium
		e.Message = c.Kind + " " + describe(c) + ": restore failed"
		reason = err.Error()
	}
	e.Severity = severityNames[e.SeverityID]
	e.Unmapped.Skillwire = Fields{Event: "restore", Via: o.Via, Candidate: ref(c), PreviousDigest: from, Digest: to, Quarantine: quarantine, Reason: reason}
	return e
}

var categoryNames = map[int]string{
	CategorySystem:      "System Activity",
	CategoryFindings:    "Findings",
	CategoryRemediation: "Remediation",
}

var classNames = map[int]string{
	ClassFileActivity:     classNameFileActivity,
	ClassDetectionFinding: classNameDetection,
	ClassFileRemediation:  classNameFileRemediation,
}

var activityNames = map[int]map[int]string{
	ClassFileActivity:     {ActivityCreate: "Create", ActivityUpdate: "Update", ActivityDelete: "Delete", ActivityRename: "Rename", ActivitySetAttributes: "Set Attributes"},
	ClassDetectionFinding: {ActivityFindingCreate: "Create"},
	ClassFileRemediation:  {ActivityRestore: "Restore"},
}

func base(o Origin, class, activity int, sev Severity) Event {
	name := activityNames[class][activity]
	e := Event{
		ActivityID: activity, ActivityName: name,
		CategoryUID: class / 1000, CategoryName: categoryNames[class/1000],
		ClassUID: class, ClassName: classNames[class],
		TypeUID: class*100 + activity, TypeName: classNames[class] + ": " + name,
		SeverityID: sev, Severity: severityNames[sev],
		Metadata: Metadata{Version: Version, Product: Product{Name: "skillwire", VendorName: "skillwire"}, LogName: FileName},
		Device:   Device{TypeID: 0, Type: "Unknown"},
		Actor:    Actor{User: User{TypeID: 1, Type: "User"}},
	}
	if !o.Time.IsZero() {
		e.Time = o.Time.UnixMilli()
	}
	if o.SessionID != "" {
		e.Actor.AppName = "Claude Code"
		e.Actor.Session = &Session{UID: o.SessionID}
	}
	e.Metadata.CorrelationUID = o.PromptID
	return e
}

// finding is a Detection Finding about candidate c. Its finding_info.uid
// is stable for the same rule, candidate and key. So a backend can group
// reports of one finding.
func finding(o Origin, c Candidate, sev Severity, rule, key, title string) Event {
	e := base(o, ClassDetectionFinding, ActivityFindingCreate, sev)
	e.Metadata.Profiles = []string{"host"}
	e.StatusID, e.Status = 1, "New"
	alert := sev >= SeverityMedium
	e.IsAlert = &alert
	e.FindingInfo = &FindingInfo{
		UID:      "skillwire:" + rule + ":" + c.ID + ":" + key,
		Title:    title,
		Types:    []string{"skillwire/" + rule},
		Analytic: Analytic{Name: "skillwire " + rule, TypeID: 1, Type: "Rule"},
	}
	e.Resources = []Resource{{UID: c.ID, Name: c.Name, Type: c.Kind, RoleID: 1, Role: "Target", Labels: scopeLabel(c.Scope)}}
	return e
}

func scopeLabel(scope string) []string {
	if scope == "" {
		return nil
	}
	return []string{"scope:" + scope}
}

func severityOfClass(class string) Severity {
	switch class {
	case "unexpected":
		return SeverityMedium
	case "announced-by-project":
		return SeverityLow
	}
	return SeverityInformational
}

func ref(c Candidate) *Candidate { return &c }

// describe names a candidate in a message by its name, else its id.
func describe(c Candidate) string {
	if c.Name != "" {
		return `"` + c.Name + `" (` + c.ID + ")"
	}
	return c.ID
}

func joinPath(root string, rel []byte) string {
	if len(rel) == 0 {
		return root
	}
	if root == "" {
		return string(rel)
	}
	return strings.TrimSuffix(root, "/") + "/" + string(rel)
}

func fileOf(full string, e *snapshot.Entry) *File {
	f := &File{Name: path.Base(full), Path: full, TypeID: 0, Type: "Unknown"}
	if e == nil {
		return f
	}
	switch e.Kind {
	case snapshot.File:
		f.TypeID, f.Type = 1, "Regular File"
		size := e.Size
		f.Size = &size
		f.Hashes = []Fingerprint{{AlgorithmID: 99, Algorithm: "BLAKE3", Value: hex.EncodeToString(e.Hash[:])}}
	case snapshot.Dir:
		f.TypeID, f.Type = 2, "Folder"
	case snapshot.Symlink:
		f.TypeID, f.Type = 7, "Symbolic Link"
	default:
		f.TypeID, f.Type = 99, "Other"
	}
	return f
}

// pathHex is the hex of a path that JSON cannot carry exactly.
func pathHex(p string) string {
	if utf8.ValidString(p) {
		return ""
	}
	return hex.EncodeToString([]byte(p))
}
