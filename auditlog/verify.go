package auditlog

// Verification is what Verify found.
type Verification struct {
	Lines int
	// Chained lines carry prev: skillwire wrote them. Unchained lines do
	// not. Other tools wrote them, or it is the first line skillwire wrote
	// to an empty log.
	Chained, Unchained int
	skips
	// Broken is the first line whose prev is not the SHA-256 of the line
	// before it. That line was changed, removed or inserted. Or it is a
	// first line with prev: lines before it are gone. It is 0 when none.
	Broken int
	// Truncated: the last line has no newline. The last write was cut
	// short, or the file was cut.
	Truncated bool
}

// OK reports whether the chain is intact and the log not truncated.
func (v *Verification) OK() bool { return v.Broken == 0 && !v.Truncated }

// Verify walks the chain of the log at path. Every valid line that has prev
// must follow exactly the line it names. Lines without prev are counted,
// not judged. The chain shows accidental damage and naive edits. A writer
// who can rewrite the whole file can recompute it.
func Verify(path string, o Options) (*Verification, error) {
	f, err := openForReading(path, o)
	if err != nil {
		return nil, err
	}
	defer f.close()
	now := o.now()
	v := &Verification{}
	var before [32]byte
	term, err := eachLine(f.reader(), true, func(ln *line) {
		v.Lines = ln.num
		defer func() { before = ln.sum }()
		if ln.b == nil {
			v.skip(ln.num, ErrTooLong)
			return
		}
		e, err := ParseLine(ln.b, now)
		switch {
		case err != nil:
			v.skip(ln.num, err)
		case e.Prev == "":
			v.Unchained++
		default:
			v.Chained++
			if v.Broken == 0 && (ln.num == 1 || e.Prev != PrevOf(before)) {
				v.Broken = ln.num
			}
		}
	})
	if err != nil {
		return nil, readErr(path, err)
	}
	v.Truncated = !term
	return v, nil
}
