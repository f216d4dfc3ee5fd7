import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useDocumentTitle, usePageTitle } from './document-title';

function Page({ title }: { title: string }) {
  useDocumentTitle(title);
  return null;
}

function Header() {
  return <p>{usePageTitle()}</p>;
}

describe('the page title', () => {
  it('sets the document title and tells the header the page name, following changes', () => {
    const { rerender } = render(
      <>
        <Header />
        <Page title="shop.example.com" />
      </>,
    );
    expect(document.title).toBe('shop.example.com - Launchbay');
    expect(screen.getByText('shop.example.com')).toBeTruthy();
    rerender(
      <>
        <Header />
        <Page title="Proxy Log #42" />
      </>,
    );
    expect(screen.getByText('Proxy Log #42')).toBeTruthy();
  });
});
