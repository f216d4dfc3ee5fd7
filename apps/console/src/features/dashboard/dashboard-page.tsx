export default function P() { return <div>dashboard/dashboard-page</div>; }
