import { Link } from 'react-router';
import { Page } from '../../components/page';

export function NotFoundPage({ what = 'page' }: { what?: string }) {
  return (
    <Page title={`No such ${what}`}>
      <p>
        This {what} does not exist, or it belongs to another team. <Link to="/apps">Go to your apps</Link>.
      </p>
    </Page>
  );
}
