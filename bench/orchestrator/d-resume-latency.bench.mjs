// bench/orchestrator (d): p50/p99 from ResumeRun (and from an approval
// decision event) to the next node_start, against LangGraph + PostgresSaver
// resume (reference: 8.4 ms median on this machine class). Target: p99 < 20 ms.
//
// TODO(issue 4, part d): not yet measurable — the orchestrator's ResumeRun RPC
// and approval nodes arrive later. When they do: start a playbook
// `approval → transform` N times, wait for each run to park, call ResumeRun
// with an approve decision and take (node_start of the next node).started_at −
// the ResumeRun send time; interleave with LangGraph interrupt() +
// Command({ resume }) on PostgresSaver; write bench/results/orchestrator-d.json
// with the same machine facts as parts (a)–(c). No figures are recorded
// until then.
//
//   node bench/orchestrator/d-resume-latency.bench.mjs   # exits 2
process.stderr.write('bench/orchestrator (d): not yet measurable: ResumeRun arrives later\n');
process.exit(2);
