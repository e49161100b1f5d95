// Package review holds a reviewer's use cases on the store. Record binds
// a verdict to the digest reviewed. Status reports what awaits review.
// Each owns the order of its steps; the command only parses and renders.
package review
