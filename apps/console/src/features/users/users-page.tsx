export default function P() { return <div>users/users-page</div>; }
