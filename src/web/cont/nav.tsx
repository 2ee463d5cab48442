import type { Actor } from '../../context';
import { may } from '../../services/roles';

type ContSection = 'cont' | 'oameni' | 'sesiuni';

/** Cont's own pages; Oameni only for whom the role lets manage people (services/roles.ts). */
export function ContNav({ actor, current }: { actor: Actor; current: ContSection }) {
  const sections: Array<{ id: ContSection; href: string; label: string }> = [
    { id: 'cont', href: '/cont', label: 'Setările contului' },
    ...(may(actor, 'people') ? [{ id: 'oameni' as const, href: '/cont/oameni', label: 'Oameni' }] : []),
    { id: 'sesiuni', href: '/cont/sesiuni', label: 'Sesiunile mele' },
  ];
  return (
    <nav class="subnav" aria-label="Contul">
      {sections.map((s) => (
        <a href={s.href} aria-current={s.id === current ? 'page' : undefined}>
          {s.label}
        </a>
      ))}
    </nav>
  );
}
