// What the page holds, in one object: every module reads and changes its properties (an imported binding
// cannot be assigned; an imported object's properties can).
export const S = {
  clips: [], clipById: new Map(), probes: new Map(), current: null, timeline: null, ops: [], opsSent: "", frames: null,
  ranges: [], editing: null, previewing: false, docked: false, pending: null, inFlight: false, playerClip: null,
  // Add clicks answered (a range added, or the reason it was not shown): what a test waits on, not a fixed time.
  addsAnswered: 0,
};
window.vtrim = S; // for tests and the curious
