// undici's own files, which ship without declarations: src/undici.ts gives them undici's public types.
declare module 'undici/lib/core/connect.js' {
  const connect: unknown;
  export default connect;
}
declare module 'undici/lib/dispatcher/client.js' {
  const client: unknown;
  export default client;
}
