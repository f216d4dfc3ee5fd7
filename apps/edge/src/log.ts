/** A log line of the edge's processes: time, who (`edge 1234`, `edge worker 1235`), what. */
export function edgeLog(who: string): (message: string) => void {
  return (message) => console.log(`${new Date().toISOString()} [${who} ${process.pid}] ${message}`);
}
