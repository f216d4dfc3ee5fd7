import { Terminal } from 'lucide-react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { CopyButton } from '@/components/ui/copy-button';
import type { ProjectDetail } from '@/lib/project-queries';

/** The platform's own git remote for this project: where `git push` deploys it (same host as the console). */
export function gitRemoteUrl(slug: string, origin = window.location.origin): string {
  return `${origin}/git/${slug}.git`;
}

/** For a project with no git URL: its source is `git push` to the platform, shown with the commands to set it up. */
export function GitRemoteCard({ project }: { project: ProjectDetail }) {
  const remote = gitRemoteUrl(project.slug);
  const commands = `git remote add launchbay ${remote}\ngit push launchbay ${project.branch}`;
  return (
    <Card className="gap-4" role="region" aria-labelledby="git-remote-title">
      <CardHeader>
        <CardTitle id="git-remote-title" className="flex items-center gap-2">
          <Terminal className="size-4" /> Deploy with git push
        </CardTitle>
        <CardDescription>
          This project has no repository URL: push to Launchbay and the pushed head of {project.branch} deploys. Use an API key
          with the deployments:write permission as the password.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        <div className="grid gap-1">
          <span className="text-muted-foreground text-xs">Git remote</span>
          <div className="flex min-w-0 items-center gap-2">
            <code className="min-w-0 flex-1 truncate rounded-md border bg-muted/50 px-2 py-1.5 font-mono text-sm">{remote}</code>
            <CopyButton value={remote} iconOnly label="Copy the git remote" />
          </div>
        </div>
        <div className="grid gap-1">
          <span className="text-muted-foreground text-xs">Add it and push</span>
          <div className="flex min-w-0 items-start gap-2">
            <pre className="min-w-0 flex-1 overflow-x-auto rounded-md border bg-muted/50 px-2 py-1.5 font-mono text-sm">
              {commands}
            </pre>
            <CopyButton value={commands} iconOnly label="Copy the commands" />
          </div>
        </div>
      </CardContent>
    </Card>
  );
}
