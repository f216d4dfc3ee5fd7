// Node's internal HTTP module the edge takes its parser from (http-parser.ts gives it its types).
declare module '_http_common' {
  const common: unknown;
  export default common;
}
