package baseline

import "time"

// Renamed says which removed candidate a record's review was carried from.
type Renamed struct {
	From string    `json:"from"` // the removed candidate's id
	Name []byte    `json:"name"` // its name, raw bytes (base64 in JSON)
	At   time.Time `json:"at"`
}

// Rename pairs a removed candidate reviewed SAFE with the new candidate that
// replaced it. Both are of the same root and one comparison.
type Rename struct{ From, To string }

// Carry carries the SAFE review of rn.From over to rn.To. rn.To is then
// pending (Renamed set) until a person records a verdict. So renaming a
// reviewed candidate never turns its later changes into a one-time notice.
// The reviewed version comes along as rn.To's reference. Its changes are then
// measured against what the person reviewed. It does nothing when either
// record is no longer as paired: another process acted meanwhile.
func (rs Reviews) Carry(rn Rename, now time.Time) error {
	from, err := rs.t.Record(rn.From)
	if err != nil {
		return err
	}
	to, err := rs.t.Record(rn.To)
	if err != nil {
		return err
	}
	if from == nil || to == nil || !from.Removed || from.Review == nil || to.Review != nil || to.Removed ||
		!sameRoot(to, string(from.Root)) {
		return nil
	}
	rv := *from.Review
	rv.From = from.ID
	to.Review = &rv
	to.Renamed = &Renamed{From: from.ID, Name: from.Name, At: now}
	if err := rs.t.carryReference(from.ID, to.ID); err != nil {
		return err
	}
	return rs.t.put(to)
}
