// Package monitor watches a live conversation between a Core and its Runtimes and reports every
// frame that breaks a rule the wire alone can show, naming the connection, the frame, the side
// that broke it and the rule's ID (scenarios/rules/rules.tsv).
//
// It is passive: it sees each frame as it passes (fault.Relay's Tap, or any other tap that calls
// Open, Frame and Close in the order the frames travel), answers nothing and changes nothing. It
// holds only what the wire lets a third party know for sure: what each request asked and what
// each reply claims. So it checks a frame's shape (proto), the correlation of replies with the
// requests they answer, the arithmetic of transfers, the order of a Run's stream and of a
// preparation's statuses, and what must never cross a reconnection. What depends on a peer's
// inner state (its capacity, its clock, a native Harness) is the scenarios' job, not this one.
//
// A frame can only be blamed once it has been seen in its direction, and a tap sees a request
// before it forwards it, so a reply is never checked before the request it answers.
package monitor
