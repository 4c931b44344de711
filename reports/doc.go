// Package reports renders what jitterkit found about a retry policy: one
// [Report] value, filled from the property checks ([Report.AddChecks]) and
// the fleet replay ([Report.AddReplay]), written five ways.
//
//	report.json  WriteJSON      the shape named by Schema, for scripts
//	report.md    WriteMarkdown  for a pull request or a design document
//	report.html  WriteHTML      one self-contained page with SVG charts
//	junit.xml    WriteJUnit     one test case per check and one for the replay
//	(terminal)   WriteText      the verdict first, then the checks, the
//	                            replay's figures and what to change
//
// [WriteDir] writes the four files atomically, and [WriteFile] any one file. [Advise] derives what to
// change from the failed and warned checks and from the replay.
//
// A Report holds no clock: the same Report renders to the same bytes, so a
// report can be kept under version control and compared. The HTML page
// escapes every string of the report, whatever a device id, a policy name or
// a command holds.
package reports
