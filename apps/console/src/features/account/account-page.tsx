export default function P() { return <div>account/account-page</div>; }
