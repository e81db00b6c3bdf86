import { asyncApiDocument, listDocuments, openApiDocuments } from '@cc/contracts';
import { renderAsyncApi, renderIndex, renderOpenApi } from '../../src/domain/docs-page';

describe('docs pages', () => {
  it('lists every document and renders each operation without scripts or outside assets', () => {
    const index = renderIndex(listDocuments());
    for (const name of Object.keys(openApiDocuments)) expect(index).toContain(`href="/docs/${name}"`);
    expect(index).toContain('href="/docs/asyncapi.json"');
    const page = renderOpenApi('statistics', openApiDocuments.statistics as unknown as Record<string, unknown>);
    expect(page).toContain('/stats/agent-activities');
    expect(page).toMatch(/<span class="m">get<\/span>/);
    const events = renderAsyncApi('asyncapi', asyncApiDocument as unknown as Record<string, unknown>);
    expect(events).toContain('cc.interaction.v1');
    for (const html of [index, page, events]) {
      expect(html).not.toMatch(/<script|<link|src=/i);
    }
  });

  it('escapes text from the documents', () => {
    const html = renderOpenApi('x', {
      info: { title: '<img onerror=x>', version: '1', description: '"quoted" & <b>' },
      paths: { '/a': { get: { operationId: 'a', summary: '<script>alert(1)</script>', responses: {} } } },
    });
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;');
  });
});
