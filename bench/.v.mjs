import sharp from 'sharp';
await sharp('test/fixtures/composites/coffee.jpg').png().toFile('/tmp/coffee-view.png');
