// Package reports renders what jitterkit found about a retry policy: one
// [Report] value, filled from the property checks ([Report.AddChecks]) and
// the fleet replay ([Report.AddReplay]), written five ways.
//
//	report.json  WriteJSON      the shape its schema names, for scripts
//	report.md    WriteMarkdown  for a pull request comment or a design document
//	report.html  WriteHTML      one self-contained page with SVG charts
//	junit.xml    WriteJUnit     one test case per check and one for the replay
//	(terminal)   WriteText      the verdict first, then the checks, the
//	                            replay's figures and what to change
//
// The formats for people open the same way: the verdict, its reason in one
// line ("the replay's peak ratio 2.56 is over the 0.6 threshold"), and what
// to change first, the measured fix when the gate found one.
//
// [WriteDir] writes the four files as one set, in a new directory renamed
// into place where it can, and never over a file it did not write;
// writeFile writes any one file, replacing a regular file atomically and
// writing through a device or a pipe.
// [Advise] derives what to change from the failed and warned checks and
// from the replay.
//
// A Report holds no clock: the same Report renders to the same bytes, so a
// report can be kept under version control and compared.
//
// # Strings from outside
//
// A report's strings come from outside the kit: device ids from recorded
// traces, an external program's command and standard error, policy names
// and config values. None of them can control a terminal or a report:
//
//   - The text summary, Markdown, HTML and JUnit show every string of a
//     Report through [Visible]: each control character (C0 with the newline
//     and the tab, DEL, C1), each invisible formatting character (such as
//     the right-to-left override U+202E) and each byte of invalid UTF-8 is
//     written as an escape (\x1b, \u202e, \xff), so one string stays one
//     line and cannot forge a table row, a PASS line or an XML element.
//     Each format then escapes its own markup.
//   - report.json keeps every string as it is, for programs; the encoder
//     writes the same characters as JSON escapes (\u001b), and a byte of
//     invalid UTF-8 is read back as U+FFFD.
//   - In every format a long string is cut, with a marker saying how much
//     was left out ("…(49.9 MB more)"): ids, names, statuses and versions
//     at 256 bytes, sentences, errors, commands and advice at 4096, the
//     labels of the charts at 64. Lists of devices and delays are cut at
//     ten, with a count of the rest, everywhere but in report.json.
package reports
